"""Suit-isomorphic classes of H-card hands of a deck of the lowest ``ranks`` ranks x ``suits`` suits.

Two hands are equivalent when a permutation of the suits maps one onto the other: they have the
same value in deuce-to-seven (flushes included) and their discards are equivalent too. The
canonical key of a hand is its four per-suit rank bitmasks (13 bits each, bit r = rank r),
sorted descending and packed into one int64 (largest mask in the highest bits). Class ids are
dense, 0..C-1 in ascending key order. For 52 cards and 5-card hands C = 134,459.

Canonical suits relabel the suits in sorted-mask order (the suit with the largest mask becomes
clubs, the next diamonds, ...; equal masks keep their original suit order). A hand's canonical
card order lists its concrete cards by ascending canonical card id (rank, then canonical suit):
discard-mask bit j of a class refers to position j of that order, so every hand of a class
shares one strategy row, and for the class's representative (its canonical hand) the order is
plain ascending card id, as in ``distcfr.games.draw27``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from distcfr.cards import RANKS, SUITS, deck_description, format_cards, parse
from distcfr.errors import BadParameter

_SUIT_BITS = 13  # one rank bitmask per suit in the packed key
_FIELD = (1 << _SUIT_BITS) - 1
_CHUNK = 1 << 15  # hands per canonicalisation step while building: cache-sized temporaries
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # multiplicative hash of keys into the lookup table


def combinations(n: int, k: int) -> np.ndarray:
    """(C(n, k), k) int64: every k-subset of range(n), ascending within a row, rows in lexicographic order."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    combos = np.arange(n, dtype=np.int64)[:, None]  # (n, 1)
    for _ in range(k - 1):
        last = combos[:, -1]
        counts = n - 1 - last  # how many larger values each row can take next
        rows = np.repeat(np.arange(len(combos)), counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        new = last[rows] + 1 + (np.arange(len(rows)) - starts)
        combos = np.concatenate([combos[rows], new[:, None]], axis=1)
    return combos


def canonical_columns(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Canonical key and canonical card order of hands given column-wise.

    cols: (H, n) int card ids, column i = hand i (any card order). Returns (keys (n,) int64,
    canonical (H, n) int32): the same cards reordered by ascending canonical card id (rank * 4 +
    canonical suit). Column layout keeps every step a whole-row numpy operation.
    """
    cols = np.ascontiguousarray(cols, dtype=np.int32)  # (H, n): ravel() below must be a view
    n = cols.shape[1]
    column = np.arange(n, dtype=np.int64)  # (n,)
    rank, suit = cols >> 2, cols & 3  # (H, n) int32
    packed = (np.int64(1) << (rank + _SUIT_BITS * suit)).sum(0)  # (n,) int64: the four masks side by side
    masks = ((packed >> (_SUIT_BITS * np.arange(4))[:, None]) & _FIELD).astype(np.int32)  # (4, n) per suit
    order_key = masks * 4 + (3 - np.arange(4, dtype=np.int32))[:, None]  # (4, n) distinct: ties to lower suit
    canon_suit = (order_key[None, :, :] > order_key[:, None, :]).sum(1, dtype=np.int32)  # (4, n) 0 = largest
    keys = (masks.astype(np.int64) << (_SUIT_BITS * (3 - canon_suit))).sum(0)  # (n,) largest mask on top
    canon_card = rank * 4 + canon_suit.ravel()[suit * n + column]  # (H, n) distinct within a column
    position = (canon_card[None, :, :] < canon_card[:, None, :]).sum(1, dtype=np.int64)  # (H, n) ascending place
    canonical = np.empty_like(cols)
    canonical.ravel()[position * n + column] = cols
    return keys, canonical


def key_cards(keys: np.ndarray, hand: int) -> np.ndarray:
    """(n, hand) ascending card ids of the canonical hands with these keys (n,)."""
    keys = np.asarray(keys, dtype=np.int64)
    shifts = _SUIT_BITS * (3 - np.arange(4))  # canonical suit s sits at bits 13 * (3 - s)
    masks = (keys[:, None] >> shifts) & _FIELD  # (n, 4) [canonical suit]
    bits = (masks[:, None, :] >> np.arange(13)[:, None]) & 1  # (n, 13, 4) [rank, suit]: card id order
    return np.nonzero(bits.reshape(len(keys), 52))[1].reshape(len(keys), hand)


def _every_hand_key(deck: np.ndarray, hand: int) -> np.ndarray:
    """(C(n, H),) canonical key of every hand of the deck, built in cache-sized pieces."""
    n = len(deck)
    rest = combinations(n - 1, hand - 1) + 1  # (C(n-1, H-1), H-1): the other cards, after a first card 0
    firsts = rest[:, 0] if hand > 1 else np.full(len(rest), n)  # (rows,) sorted
    keys = []
    for first in range(n):  # hands whose lowest card is deck[first]: rows of rest above it
        tail = rest[np.searchsorted(firsts, first + 1):]
        for s in range(0, len(tail), _CHUNK):
            piece = tail[s:s + _CHUNK]
            cols = np.concatenate([np.full((1, len(piece)), first), piece.T])  # (H, m) deck positions
            keys.append(canonical_columns(deck[cols])[0])
    return np.concatenate(keys)


def _hash(keys: np.ndarray, bits: int) -> np.ndarray:
    """(n,) int64 slot of each key in a table of 2**bits slots."""
    return ((keys.astype(np.uint64) * _GOLDEN) >> np.uint64(64 - bits)).astype(np.int64)


def _hash_table(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Open-addressing table (linear probing) of distinct keys: (slots (2**bits,) int64 class id or -1, bits)."""
    bits = max(4, int(len(keys) * 4 - 1).bit_length())  # load factor <= 1/4
    slots = np.full(1 << bits, -1, dtype=np.int64)
    pending, pos = np.arange(len(keys)), _hash(keys, bits)
    while pending.size:
        free = np.flatnonzero(slots[pos] < 0)
        taken, first = np.unique(pos[free], return_index=True)  # one winner per free slot
        slots[taken] = pending[free[first]]
        placed = np.zeros(len(pending), dtype=bool)
        placed[free[first]] = True
        pending, pos = pending[~placed], (pos[~placed] + 1) & ((1 << bits) - 1)
    return slots, bits


class HandClasses:
    """The suit-isomorphism classes of ``hand``-card hands of a ``ranks`` x ``suits`` deck."""

    def __init__(self, ranks: int, suits: int, hand: int):
        if not (2 <= ranks <= 13 and 1 <= suits <= 4 and 1 <= hand <= 5 and hand <= ranks * suits):
            raise BadParameter(f"no {hand}-card hands of a {ranks} ranks x {suits} suits deck")
        self.ranks, self.suits, self.hand = ranks, suits, hand
        self.deck = np.array([r * 4 + s for r in range(ranks) for s in range(suits)], dtype=np.int64)
        self.keys, counts = np.unique(_every_hand_key(self.deck, hand), return_counts=True)  # (C,) sorted int64
        self.hands_per_class = counts.astype(np.int64)  # (C,) concrete hands per class
        self.n_hands = math.comb(len(self.deck), hand)
        self._slots, self._bits = _hash_table(self.keys)

    @property
    def n_classes(self) -> int:
        return len(self.keys)

    def classify(self, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class ids (n,) int64, canonical (n, H) int32) of hands (n, H) of this deck's card ids."""
        ids, canonical = self.classify_columns(np.asarray(hands).T)
        return ids, canonical.T

    def classify_columns(self, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`classify` for hands given column-wise: cols (H, n) -> (ids (n,), canonical (H, n))."""
        cols = np.asarray(cols)
        pieces = [canonical_columns(cols[:, s:s + _CHUNK]) for s in range(0, max(cols.shape[1], 1), _CHUNK)]
        keys = np.concatenate([k for k, _ in pieces])
        return self._lookup(keys), np.concatenate([c for _, c in pieces], axis=1)

    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        """(n,) int64 class ids of canonical keys (n,), by linear probing of the hash table."""
        pos = _hash(keys, self._bits)  # (n,)
        ids = self._slots[pos]
        todo = np.flatnonzero((ids >= 0) & (self.keys.take(ids, mode="clip") != keys))  # slot taken by another key
        while todo.size:
            pos[todo] = (pos[todo] + 1) & ((1 << self._bits) - 1)
            ids[todo] = self._slots[pos[todo]]
            todo = todo[(ids[todo] >= 0) & (self.keys.take(ids[todo], mode="clip") != keys[todo])]
        if (ids < 0).any():
            raise BadParameter(f"hands that are not {self.hand} distinct cards of a {len(self.deck)}-card deck")
        return ids

    def representative(self, class_ids: np.ndarray) -> np.ndarray:
        """(n, H) ascending card ids of each class's canonical hand."""
        return key_cards(self.keys[np.asarray(class_ids)], self.hand)

    def label(self, class_id: int) -> str:
        """The canonical hand written high card first, e.g. ``"8c6d4h3s2s"`` (ranks only with one suit)."""
        cards = self.representative(np.array([class_id]))[0][::-1]
        if self.suits == 1:
            return "".join(RANKS[c // 4] for c in cards.tolist())
        return format_cards(cards)

    def parse_hand(self, text: str, what: str = "hand") -> np.ndarray:
        """(H,) card ints of one hand of this deck written as text (any order; ranks only where the
        deck has one suit); BadParameter naming ``what`` and describing the deck when it is not."""
        written = text
        if self.suits == 1 and not any(ch in SUITS for ch in text.lower()):  # ranks only, as one-suit labels
            text = "".join(ch + "c" for ch in text if not ch.isspace())
        problem = f"{what} {written!r} is not {self.hand} different cards of this deck: {deck_description(self.deck)}"
        try:
            cards = parse(text)
        except BadParameter as err:
            raise BadParameter(f"{problem} ({err})") from None
        if len(cards) != self.hand or len(set(cards.tolist())) != self.hand or not np.isin(cards, self.deck).all():
            raise BadParameter(problem)
        return cards

    def class_of(self, text: str) -> int:
        """The class of a concrete hand written as text (any suits of this deck, any order)."""
        return int(self.classify(self.parse_hand(text)[None])[0][0])


@lru_cache(maxsize=4)
def hand_classes(ranks: int, suits: int, hand: int) -> HandClasses:
    """The hand classes of a configuration, built once per process (building enumerates every hand
    of the deck)."""
    return HandClasses(ranks, suits, hand)

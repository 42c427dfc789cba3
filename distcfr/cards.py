"""Cards as integers, parsing and printing, and a vectorised deuce-to-seven lowball evaluator.

A card is ``rank_index * 4 + suit``: rank_index 0 (deuce) .. 12 (ace) over ``RANKS``, suit
c d h s = 0..3 over ``SUITS``.

The evaluator is additive. Each card has an integer key: a per-rank code (``RANK_CODES``,
chosen greedily so that the sums over every multiset of 1..5 ranks with at most four of a
rank are all distinct; max sum 742,160 < 2**20) plus ``6**suit << 20`` (base-6 suit counters:
five cards of suit s sum to ``5 * 6**s`` there, no other 1..5 cards do). The key of a set of cards
is the sum of its cards' keys, so keys of disjoint sets add: ``rank_of_keys(hand_keys(kept)
+ hand_keys(drawn))`` ranks the union. One lookup table, built once on first use,
maps a key to the hand's dense rank among hands of the same size.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from distcfr.errors import BadParameter

RANKS = "23456789TJQKA"
SUITS = "cdhs"

# Per-rank additive code; sums over multisets of 1..5 ranks (each rank at most 4 times) are unique.
RANK_CODES = (1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415, 148432)
SUIT_CODES = (1, 6, 36, 216)  # base-6 counters: 5 * 6**s only for five cards of suit s
_RANK_BITS = 20  # 5 * RANK_CODES[-1] < 2**20; keys of <= 5 cards < 1081 << 20 < 2**31
_N_KEYS = 5 * RANK_CODES[-1] + 1  # size of one half (non-flush / flush) of the table
CARD_KEYS = np.array(
    [RANK_CODES[c // 4] + (SUIT_CODES[c % 4] << _RANK_BITS) for c in range(52)], dtype=np.int32
)  # (52,) int32: the additive key of each card

LISTED_CARDS = 24  # deck_description lists the cards of decks up to this size
_TOKEN = re.compile(r"[\s,]+|(10|[2-9tjqka])([cdhs])", re.IGNORECASE)
_tables: tuple[np.ndarray, np.ndarray] | None = None


def parse(text: str) -> np.ndarray:
    """Card ints of ``text``, in the order written; whitespace or commas may separate cards.

    >>> parse("7c5d 4h,3s 2c").tolist()
    [20, 13, 10, 7, 0]
    """
    cards, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise BadParameter(f"bad card {text[pos : pos + 2]!r} at position {pos} of {text!r}")
        if m.group(1):
            rank = 8 if m.group(1) == "10" else RANKS.index(m.group(1).upper())
            cards.append(rank * 4 + SUITS.index(m.group(2).lower()))
        pos = m.end()
    return np.array(cards, dtype=np.int64)


def format_cards(cards) -> str:
    """The text of card ints, the inverse of :func:`parse`.

    >>> format_cards([20, 13, 10, 7, 0])
    '7c5d4h3s2c'
    """
    out = []
    for c in np.asarray(cards).ravel().tolist():
        if not 0 <= c < 52:
            raise BadParameter(f"card id {c} is not in 0..51")
        out.append(RANKS[c // 4] + SUITS[c % 4])
    return "".join(out)


SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def deck_description(deck) -> str:
    """A deck of card ints in words, for messages: its ranks and suits, and its cards when
    there are at most ``LISTED_CARDS`` of them.

    >>> deck_description([r * 4 + s for r in range(8) for s in range(2)])
    '2-9 of clubs and diamonds (16 cards: 2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c 8d 9c 9d)'
    >>> deck_description(range(52))
    '2-A of all four suits (52 cards)'
    >>> deck_description([0, 8, 49])
    '3 cards: 2c 4c Ad'
    """
    cards = sorted({int(c) for c in deck})
    if not cards:
        return "no cards"
    text = format_cards(cards)
    listing = " ".join(text[i:i + 2] for i in range(0, len(text), 2))
    ranks = sorted({c // 4 for c in cards})
    suits = sorted({c % 4 for c in cards})
    if len(cards) != len(ranks) * len(suits) or ranks != list(range(ranks[0], ranks[-1] + 1)):
        return f"{len(cards)} cards: {listing}"  # not every suit of a run of ranks
    span = RANKS[ranks[0]] + ("" if len(ranks) == 1 else "-" + RANKS[ranks[-1]])
    names = [SUIT_NAMES[s] for s in suits]
    if len(names) == 4:
        where = "all four suits"
    else:
        where = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    count = f"{len(cards)} card{'s' * (len(cards) > 1)}"
    return f"{span} of {where} ({count}{': ' + listing if len(cards) <= LISTED_CARDS else ''})"


def _sort_key(ranks: tuple[int, ...], flush: bool) -> tuple:
    """Deuce-to-seven order of one hand (smaller = better), from its ranks and flushness."""
    counts = sorted(((ranks.count(r), r) for r in set(ranks)), reverse=True)
    pattern = tuple(c for c, _ in counts)
    straight = len(ranks) == 5 and len(set(ranks)) == 5 and max(ranks) - min(ranks) == 4
    if straight and flush:
        cat = 8
    elif pattern[0] == 4:
        cat = 7
    elif pattern == (3, 2):
        cat = 6
    elif flush:
        cat = 5
    elif straight:
        cat = 4
    else:
        cat = {1: 0, 2: 2 if pattern[:2] == (2, 2) else 1, 3: 3}[pattern[0]]
    return cat, tuple(r for _, r in counts)


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    """Key -> dense rank table (int16, -1 = no hand) and suit field -> flush offset."""
    table = np.full(2 * _N_KEYS, -1, dtype=np.int16)  # [non-flush keys | flush keys]
    for k in range(1, 6):
        entries = []  # (sort key, table index)
        for ranks in itertools.combinations_with_replacement(range(13), k):
            if max(ranks.count(r) for r in ranks) > 4:
                continue
            key = sum(RANK_CODES[r] for r in ranks)
            entries.append((_sort_key(ranks, False), key))
            if k == 5 and len(set(ranks)) == 5:
                entries.append((_sort_key(ranks, True), _N_KEYS + key))
        idx = [i for _, i in entries]
        if len(set(idx)) != len(idx) or table[idx].max() != -1:
            raise AssertionError("RANK_CODES sums are not unique")
        entries.sort()
        dense, prev = -1, None
        for sk, i in entries:
            dense += sk != prev
            table[i], prev = dense, sk
    flush_offset = np.zeros(5 * SUIT_CODES[-1] + 1, dtype=np.int32)  # suit sum -> table offset
    flush_offset[[5 * code for code in SUIT_CODES]] = _N_KEYS
    return table, flush_offset


def _get_tables() -> tuple[np.ndarray, np.ndarray]:
    global _tables
    if _tables is None:
        _tables = _build_tables()
    return _tables


def hand_keys(hands: np.ndarray) -> np.ndarray:
    """Additive key of each hand: the sum of ``CARD_KEYS`` over the last axis (int32).

    >>> kept, drawn, hand = parse("7c5d"), parse("4h3s2c"), parse("7c5d4h3s2c")
    >>> bool(hand_keys(kept) + hand_keys(drawn) == hand_keys(hand))
    True
    """
    k = CARD_KEYS.take(np.asarray(hands))  # (..., k) int32
    out = k[..., 0].copy()
    for j in range(1, k.shape[-1]):
        out += k[..., j]
    return out


def rank_of_keys(keys: np.ndarray, dtype=np.int64) -> np.ndarray:
    """Lowball rank of hands given by their keys (sums of card keys of 1..5 distinct cards).

    Smaller is better; equal for equal hands; comparable between hands of the same size.
    ``dtype=np.int16`` skips the widening copy.

    >>> rank_of_keys(hand_keys(parse("7c5d4h3s2c"))).item()
    0
    """
    table, flush_offset = _get_tables()
    keys = np.asarray(keys)
    idx = (keys & ((1 << _RANK_BITS) - 1)) + flush_offset.take(keys >> _RANK_BITS)
    return table.take(idx).astype(dtype, copy=False)


def lowball27_rank(hands: np.ndarray) -> np.ndarray:
    """Deuce-to-seven rank of each row of ``hands`` ((n, k) card ints, 1 <= k <= 5): int64 (n,).

    Smaller is better, equal hands rank equal; ranks compare between hands of the same k. Aces
    are high; with 5 cards straights and flushes count against the hand.

    >>> lowball27_rank(np.array([parse("7c5d4h3s2c"), parse("8c5d4h3s2c"), parse("6c5d4h3s2c")]))
    array([   0,    4, 5854])
    """
    hands = np.asarray(hands)
    if hands.ndim != 2 or not 1 <= hands.shape[1] <= 5:
        raise BadParameter(f"hands must have shape (n, k) with 1 <= k <= 5, not {hands.shape}")
    return rank_of_keys(hand_keys(hands))

"""Exact showdown equity of deuce-to-seven single draw, the draw chance folded into an expectation.

For a deal (two hands, the stub = deck minus both hands) and discard masks m1, m2:

1. every subset D of the stub of each size d <= H gets its additive key (``distcfr.cards``);
2. each player's final rank for each mask and each possible draw is
   ``rank_of_keys(kept key + draw key)``: arrays ``(deals, C(M, d))``;
3. player 2 draws D2, player 1 draws D1 disjoint from D2; every ordered pair of disjoint
   draws is equally likely, so the equity is the mean of ``sign(rank2 - rank1)`` over the
   pairs, gathered through a per-(d2, d1) table of the draws D1 disjoint from each D2. By the
   same exchangeability the equity is 0 when both players discard their whole hands.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from distcfr.cards import CARD_KEYS, rank_of_keys
from distcfr.errors import BadParameter

_CHUNK_ELEMENTS = 1 << 20  # deals x draw pairs per chunk (~2 MB int16 temporaries, cache sized)
_MAX_PAIRS = 1 << 24  # draw pairs per deal and mask pair beyond which exact equity is refused


@functools.cache
def _draw_tables(m: int, h: int):
    """Draw subsets of a stub of m cards and, per (d2, d1), the D1 disjoint from each D2.

    Returns (combos, disjoint): combos[d] is (C(m, d), d) int64 stub positions;
    disjoint[d2, d1] is (C(m, d2), C(m - d2, d1)) int64 indices into combos[d1]; (h, h) is
    left out (both players redraw all: the draws are exchangeable, so the equity is 0).
    """
    combos, bits = [], []
    for d in range(h + 1):
        c = np.array(list(itertools.combinations(range(m), d)), dtype=np.int64)
        c = c.reshape(len(c), d)
        combos.append(c)
        bits.append((np.int64(1) << c).sum(1))  # (C(m, d),) bitmask of each subset
    disjoint = {}
    for d2, d1 in itertools.product(range(h + 1), repeat=2):
        if d1 + d2 < 2 * h:  # (h, h) is never needed: its equity is 0
            free = (bits[d2][:, None] & bits[d1][None, :]) == 0  # (C(m, d2), C(m, d1))
            disjoint[d2, d1] = np.nonzero(free)[1].reshape(len(combos[d2]), -1)
    return combos, disjoint


def draw_pairs_per_deal(n_stub: int, hand: int) -> int:
    """How many (player 2 draw, player 1 draw) pairs ``showdown_equity`` enumerates per deal
    over all discard masks: the size of the exact expectation, to refuse what would take hours."""
    total = 0
    for k2 in range(hand + 1):
        for k1 in range(hand + 1):
            if k1 == k2 == hand:
                continue  # both discarding everything: exactly 0, skipped
            total += math.comb(hand, k1) * math.comb(hand, k2) * math.comb(n_stub, k2) * math.comb(n_stub - k2, k1)
    return total


def showdown_equity(hands1: np.ndarray, hands2: np.ndarray, deck: np.ndarray) -> np.ndarray:
    """Exact expected showdown result for player 1 after both draw.

    hands1, hands2: (n, H) int card ids, each row sorted ascending; deck: (n_cards,) every card
    id of the deck. Returns float64 array (2**H, 2**H, n) indexed [m1, m2, i]: m1 is player 1's
    discard mask, m2 player 2's (bit j set = discard the j-th card of that sorted hand). Player 2
    draws |m2| cards from the stub (deck minus both hands), then player 1 draws |m1| from what is
    left; +1 when player 1's final hand is the lower, -1 when higher, 0 when equal.

    >>> from distcfr.cards import parse
    >>> e = showdown_equity(parse("2c")[None], parse("3c")[None], parse("2c3c4c5c"))
    >>> e[:, :, 0].tolist()  # [m1][m2]: the 2 wins; both redraw: the 4 wins, a coin flip
    [[1.0, 1.0], [-1.0, 0.0]]
    """
    hands1, hands2, deck = np.asarray(hands1), np.asarray(hands2), np.asarray(deck)
    if hands1.ndim != 2 or hands1.shape != hands2.shape or not 1 <= hands1.shape[1] <= 5:
        raise BadParameter(
            f"hands must be two (n, H) arrays, 1 <= H <= 5: {hands1.shape}, {hands2.shape}"
        )
    n, h = hands1.shape
    m = deck.size - 2 * h
    if m < 2 * h or len(np.unique(deck)) != deck.size:
        raise BadParameter(
            f"a deck of {deck.size} distinct cards is too small for two {h}-card "
            f"hands and both players drawing {h} (or has repeated cards)"
        )
    both = np.concatenate([hands1, hands2], axis=1)  # (n, 2H)
    in_hand = (deck[None, :, None] == both[:, None, :]).any(2)  # (n, n_cards) bool
    unsorted = (np.diff(hands1) <= 0).any() or (np.diff(hands2) <= 0).any()
    if unsorted or (in_hand.sum(1) != 2 * h).any():
        raise BadParameter("hands must be sorted, distinct cards of the deck")
    stub = np.broadcast_to(deck, in_hand.shape)[~in_hand].reshape(n, m)  # (n, M) card ids

    pairs = max(math.comb(m, d2) * math.comb(m - d2, d1) for d2, d1 in [(h, h - 1), (h - 1, h)])
    if pairs > _MAX_PAIRS:
        raise BadParameter(
            f"exact draw equity with {h}-card hands and a {m}-card stub needs "
            f"{pairs:,} draw pairs per deal and mask pair (at most {_MAX_PAIRS:,})"
        )
    out = np.empty((1 << h, 1 << h, n), dtype=np.float64)
    combos, disjoint = _draw_tables(m, h)
    chunk = max(1, _CHUNK_ELEMENTS // max(t.size for t in disjoint.values()))
    for s in range(0, n, chunk):
        sl = slice(s, s + chunk)
        _equity_chunk(hands1[sl], hands2[sl], stub[sl], combos, disjoint, out[:, :, sl])
    return out


def _final_ranks(hands: np.ndarray, draw_keys: list[np.ndarray]) -> list[np.ndarray]:
    """Per discard mask, (c, C(M, |mask|)) int16 ranks of kept cards plus each possible draw."""
    h = hands.shape[1]
    card_keys = CARD_KEYS.take(hands)  # (c, H) int32
    ranks = []
    for mask in range(1 << h):
        keep = [j for j in range(h) if not mask >> j & 1]
        kept = card_keys[:, keep].sum(1, dtype=np.int32)  # (c,)
        ranks.append(rank_of_keys(kept[:, None] + draw_keys[h - len(keep)], dtype=np.int16))
    return ranks


def _equity_chunk(hands1, hands2, stub, combos, disjoint, out) -> None:
    """Fill out (2**H, 2**H, c) for one chunk of c deals; stub is (c, M) card ids."""
    c, h = hands1.shape
    stub_keys = CARD_KEYS.take(stub)  # (c, M) int32
    draw_keys = [stub_keys[:, cb].sum(2, dtype=np.int32) for cb in combos]  # [d]: (c, C(M, d))
    r1, r2 = _final_ranks(hands1, draw_keys), _final_ranks(hands2, draw_keys)
    sizes = [bin(mask).count("1") for mask in range(1 << h)]
    for m1 in range(1 << h):
        for d2 in range(h + 1):
            if (d2, sizes[m1]) not in disjoint:  # both redraw all: exchangeable draws, equity 0
                out[m1, -1] = 0.0
                continue
            idx = disjoint[d2, sizes[m1]]  # (A, B): D1 draws disjoint from each D2 draw
            p1 = r1[m1][:, idx]  # (c, A, B) int16
            acc = np.int16 if idx.size < 1 << 15 else np.int64  # |sum| <= idx.size
            for m2 in (m for m in range(1 << h) if sizes[m] == d2):
                diff = r2[m2][:, :, None] - p1  # (c, A, B) int16
                np.sign(diff, out=diff)
                out[m1, m2] = diff.reshape(c, -1).sum(1, dtype=acc) / idx.size

"""nl27's private states, as arrays: every starting hand, and after a draw of k cards every
(hand, received cards) pair, hand-major (the states of hand i are rows i*R .. (i+1)*R - 1, R the
number of k-card sets the cards outside the hand allow). Cards are deck positions here; card ids
(``distcfr.cards``) where a hand is ranked or printed."""

from __future__ import annotations

import itertools
import math
from functools import cache, cached_property

import numpy as np

from distcfr.cards import lowball27_rank
from distcfr.games.lowball_deck import cards_text


class Nl27Cards:
    """The private states of one deck and hand size (shared by every nl27 game on that deck)."""

    def __init__(self, ranks: int, suits: int, hand: int):
        self.hand = hand
        self.deck = np.array([r * 4 + s for r in range(ranks) for s in range(suits)])  # (n,) card ids
        self.one_suit = suits == 1
        n = len(self.deck)
        self.hands = np.array(list(itertools.combinations(range(n), hand)), dtype=np.int64)  # (n_h, h) positions
        self.hand_bits = (np.int64(1) << self.hands).sum(axis=1)  # (n_h,) int64 card set
        others = np.array([[c for c in range(n) if c not in set(row)] for row in self.hands.tolist()],
                          dtype=np.int64).reshape(len(self.hands), n - hand)  # (n_h, n - h) positions not held
        self._others = others

    @staticmethod
    def of(game) -> Nl27Cards:
        p = game.params
        return _cards(p.ranks, p.suits, p.hand)

    @property
    def n_hands(self) -> int:
        return len(self.hands)

    @cache  # noqa: B019 -- one object per deck (``of``), a few small arrays per draw count
    def received(self, k: int) -> np.ndarray:
        """(n_h, R_k, k) deck positions of every k-card set a hand can receive."""
        m = self._others.shape[1]
        combos = np.array(list(itertools.combinations(range(m), k)), dtype=np.int64).reshape(math.comb(m, k), k)
        return self._others[:, combos]

    def post_bits(self, k: int) -> np.ndarray:
        """(n_h * R_k,) int64: the cards a player has seen after drawing k (its hand and those received)."""
        got = self.received(k)
        bits = (np.int64(1) << got).sum(axis=2) if k else np.zeros(got.shape[:2], dtype=np.int64)
        return (bits + self.hand_bits[:, None]).ravel()

    def final_ranks(self, mask: int) -> np.ndarray:
        """(n_h * R_k,) deuce-to-seven rank of the final hand after discarding ``mask`` (lower wins)."""
        k = bin(mask).count("1")
        keep = [j for j in range(self.hand) if not mask >> j & 1]
        got = self.received(k)  # (n_h, R, k)
        kept = np.broadcast_to(self.hands[:, None, keep], (*got.shape[:2], len(keep)))
        final = np.concatenate([kept, got], axis=2).reshape(-1, self.hand)
        return lowball27_rank(self.deck[final])

    def label(self, positions) -> str:
        return cards_text(self.deck[list(positions)], self.one_suit)

    @cached_property
    def hand_labels(self) -> tuple[str, ...]:
        return tuple(self.label(h) for h in self.hands.tolist())

    @cache  # noqa: B019
    def post_labels(self, k: int) -> tuple[str, ...]:
        """``hand+received`` per state, e.g. ``96+4``: held 9 and 6, drew a 4."""
        got = self.received(k)
        if k == 0:
            return self.hand_labels
        return tuple(f"{self.hand_labels[i]}+{self.label(got[i, j])}"
                     for i in range(got.shape[0]) for j in range(got.shape[1]))


@cache
def _cards(ranks: int, suits: int, hand: int) -> Nl27Cards:
    return Nl27Cards(ranks, suits, hand)

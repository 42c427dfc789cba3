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
from distcfr.games.draw27 import MASK_CODES
from distcfr.games.lowball_deck import cards_text
from distcfr.games.nl27_abstraction import post_keys, rule_masks, value_label


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
        return self._ranks_after(np.full(self.n_hands, mask, dtype=np.int64), k)

    @cached_property
    def rule_masks(self) -> np.ndarray:
        """(n_h, H+1) int64: the mask each hand discards drawing 0..H by the rule."""
        return rule_masks(self.deck[self.hands])

    def _ranks_after(self, masks: np.ndarray, k: int) -> np.ndarray:
        """(n_h * R_k,) final ranks when hand i discards ``masks[i]`` (k bits each) and receives each
        k-card set in turn."""
        return lowball27_rank(self.final_hands(masks, k))

    def final_hands(self, masks: np.ndarray, k: int) -> np.ndarray:
        """(n_h * R_k, H) card ids of the final hands when hand i discards ``masks[i]`` (k bits each)
        and receives each k-card set in turn (hand-major, as the states)."""
        kept_at = (masks[:, None] >> np.arange(self.hand)[None, :] & 1) == 0  # (n_h, H) positions kept
        kept = self.hands[kept_at].reshape(self.n_hands, self.hand - k)  # (n_h, H-k), ascending
        got = self.received(k)  # (n_h, R, k)
        kept = np.broadcast_to(kept[:, None, :], (*got.shape[:2], self.hand - k))
        return self.deck[np.concatenate([kept, got], axis=2).reshape(-1, self.hand)]

    @cache  # noqa: B019
    def final_ranks_of(self, code: str) -> np.ndarray:
        """(n_h * R_k,) deuce-to-seven rank of the final hand after the draw ``code`` (``d<m>`` or ``n<k>``)."""
        masks = self.draw_masks(code)
        return self._ranks_after(masks, bin(int(masks[0])).count("1"))

    def draw_masks(self, code: str) -> np.ndarray:
        """(n_h,) int64: the mask each hand discards with the draw ``code`` (``d<m>``: m for every
        hand; ``n<k>``: its rule mask of k)."""
        if code[0] == "n":
            return self.rule_masks[:, int(code[1:])]
        return np.full(self.n_hands, MASK_CODES.index(code[1]), dtype=np.int64)

    # ---- post-draw keys (post=value or buckets): a table row per key of the deck's hands -------------
    @cache  # noqa: B019
    def key_space(self, post: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """(the post keys the deck's hands take, sorted (n_keys,); a label per key): the final hand's
        value written high card first (``8-6-4-3-2``), or ``value bucket b``."""
        ranks = lowball27_rank(self.deck[self.hands])  # (n_h,) every final hand is a hand of the deck
        keys = post_keys(ranks, post, self.deck, self.hand)
        present, first = np.unique(keys, return_index=True)
        if post == "value":
            labels = tuple(value_label(self.deck[self.hands[i]]) for i in first.tolist())
        else:
            labels = tuple(f"value bucket {b}" for b in present.tolist())
        return present, labels

    def state_keys(self, final_ranks: np.ndarray, post: str) -> np.ndarray:
        """(n_states,) int64: each state's row among ``key_space(post)``, from its final hand's rank."""
        present, _ = self.key_space(post)
        return np.searchsorted(present, post_keys(final_ranks, post, self.deck, self.hand))

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

"""nl27's card abstractions: what a draw may discard, and what a player's information after the
draw is keyed by. Both the exact solver (small decks, where the abstraction's cost is measured) and
the sampled solver (the real deck) take them from here, so both solve the same abstract game.

* ``draw``: ``all`` offers every discard mask; ``rule`` offers a draw count k = 0..H, and a hand
  drawing k discards its k worst cards (:func:`rule_masks`: second cards of a rank first, then the
  highest ranks), the way deuce-to-seven players draw. Standing pat stays open to every hand
  (snowing included).
* ``post``: ``recall`` keys a player's decisions after the draw by all it has seen (its hand, its
  discards, the cards it received: perfect recall); ``value`` by its final hand's deuce-to-seven
  value alone; a whole number N by N buckets of that value, each holding about the same share of
  the deck's hands (:func:`value_buckets`). The public line and both draw counts key them in every
  case.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from distcfr.cards import RANKS, lowball27_rank
from distcfr.games.draw27 import MASK_CODES

DRAWS = ("all", "rule")
MIN_BUCKETS = 2


def draw_count(code: str) -> int:
    """How many cards a draw code discards: ``d<m>`` the mask's bits (draw27's mask characters), ``n<k>`` k."""
    return bin(MASK_CODES.index(code[1])).count("1") if code[0] == "d" else int(code[1:])


def parse_draw(text: str) -> str:
    word = text.strip().lower()
    if word not in DRAWS:
        raise ValueError("draw is all (every discard) or rule (a count, the worst cards discarded)")
    return word


def parse_post(text: str) -> str:
    """``recall``, ``value`` or a whole number of buckets (as text, so that the spec prints it back)."""
    word = text.strip().lower()
    if word in ("recall", "value"):
        return word
    if not word.isdigit() or int(word) < MIN_BUCKETS:
        raise ValueError(f"post is recall, value or a number of value buckets (at least {MIN_BUCKETS})")
    return str(int(word))


def rule_masks(hands: np.ndarray) -> np.ndarray:
    """(n, H+1) int64 discard masks: [i, k] is what hand i (card ids (n, H), ascending) discards when
    it draws k, bit j discarding the j-th lowest card. The worst card first: a second (or third) card
    of a rank, then the higher rank (aces high); of two cards of one rank, the one whose suit the hand
    holds more of (it keeps fewer flush chances). Hands that a permutation of suits maps onto each
    other discard cards that it maps onto each other, or cards whose choice changes no final hand's
    value, so a hand class draws the same way whichever of its hands is dealt."""
    hands = np.asarray(hands, dtype=np.int64)
    n, h = hands.shape
    rank, suit = hands // 4, hands % 4
    suit_count = (suit[:, :, None] == suit[:, None, :]).sum(2)  # (n, H) cards of the hand in each card's suit
    order = suit_count * 4 + suit  # (n, H) within a rank, the card kept longest has the lowest
    same = rank[:, :, None] == rank[:, None, :]
    repeat = (same & (order[:, None, :] < order[:, :, None])).any(2)  # (n, H) another card of its rank ranks before it
    badness = (repeat * 16 + rank) * 64 + order  # (n, H) distinct within a hand
    worst_first = np.argsort(-badness, axis=1, kind="stable")  # (n, H) positions, worst first
    bits = np.int64(1) << worst_first  # (n, H)
    masks = np.zeros((n, h + 1), dtype=np.int64)
    masks[:, 1:] = np.cumsum(bits, axis=1)
    return masks


@cache
def value_buckets(deck: tuple[int, ...], hand: int, buckets: int) -> np.ndarray:
    """(n_values,) int64 bucket of each deuce-to-seven rank of ``hand``-card hands: ranks in order,
    cut where the deck's hands pass each 1/``buckets`` share (a value holding more than a share keeps
    one bucket; buckets below ``buckets`` then go unused)."""
    ranks = _deck_ranks(deck, hand)
    counts = np.bincount(ranks)  # (n_values,) hands of each value
    before = np.cumsum(counts) - counts
    return np.minimum(before * buckets // len(ranks), buckets - 1).astype(np.int64)


@cache
def _deck_ranks(deck: tuple[int, ...], hand: int) -> np.ndarray:
    """(C(n, hand),) the deuce-to-seven rank of every hand of the deck."""
    combos = np.array(list(itertools.combinations(deck, hand)), dtype=np.int64)
    return lowball27_rank(combos)


def post_keys(final_ranks: np.ndarray, post: str, deck, hand: int) -> np.ndarray:
    """The post-draw key of final hands given by their deuce-to-seven ranks (``post`` = value or a
    bucket count; recall has no such key)."""
    if post == "value":
        return np.asarray(final_ranks, dtype=np.int64)
    return value_buckets(tuple(int(c) for c in deck), hand, int(post))[np.asarray(final_ranks)]


def class_value_recall(suits: int, hand: int) -> bool:
    """Whether a hand class and its final hand's value say all a player knows after drawing by the rule,
    so that keys per (class, value) keep perfect recall (``post=recall`` in the sampled kernel): on
    decks of one suit (a value is a set of cards) or of one card (its suit says nothing about the
    other player's cards that its rank does not)."""
    return suits == 1 or hand == 1


def n_post_keys(post: str, deck, hand: int) -> int:
    """How many post-draw keys ``post`` has on this deck: rows of a table keyed by them."""
    ranks = _deck_ranks(tuple(int(c) for c in deck), hand)
    if post == "value":
        return int(ranks.max()) + 1
    return int(value_buckets(tuple(int(c) for c in deck), hand, int(post)).max()) + 1


def value_label(card_ids) -> str:
    """A hand's deuce-to-seven value written as its ranks, high card first (``8-6-4-3-2``; a
    five-card flush says so): what every hand of that value shares."""
    cards = sorted((int(c) for c in card_ids), reverse=True)
    text = "-".join(RANKS[c // 4] for c in cards)
    return text + " flush" if len(cards) == 5 and len({c % 4 for c in cards}) == 1 else text

"""What every sampled kernel of a deuce-to-seven game shares: the deck's suit-isomorphic hand classes
(:mod:`distcfr.games.hand_classes`), strategy tables with one row per class, and the deals a solve,
a bracket or a value reading draws (both hands and the stub, from counter-based Philox streams keyed
by the seed and the caller's key; a class's deals in class order, the other cards uniform from the
rest of the deck). The contract a kernel keeps is written in :mod:`distcfr.engine.sampled_kernel`.

A deal's columns: button hand [0:H], big blind hand [H:2H], then the stub, whose top the big blind
draws from first and the button after it; a deal of several stubs holds them one after another.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from distcfr.engine import draw27_compiled as compiled
from distcfr.engine.sampled_kernel import StrategyTable
from distcfr.engine.streams import CLASS_DOMAIN, CYCLE_DOMAIN, UNIFORM_DOMAIN
from distcfr.errors import BadParameter
from distcfr.games.hand_classes import combinations, hand_classes

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


class LowballDeals:
    """Hand classes, class tables and deals of a ``ranks`` x ``suits`` deck, ``hand`` cards each. A
    kernel sets ``strategy_tables``, ``stubs`` (stubs per training deal), ``cycle`` (a class's
    training deals walk the other hands in a cycle) and ``spread`` (a deal's stubs spread over the
    deck's ranks)."""

    strategy_tables: tuple[StrategyTable, ...] = ()
    n_keys = 0  # rows of the key tables (post-draw keys), if the kernel has any
    stubs, cycle, spread = 1, False, False

    def __init__(self, ranks: int, suits: int, hand: int):
        if ranks * suits < 4 * hand:
            raise BadParameter(f"a deck of {ranks * suits} cards is too small for {hand}-card hands and two full draws")
        self.classes = hand_classes(ranks, suits, hand)
        self.ranks, self.suits, self.hand = ranks, suits, hand
        self._hand_index: tuple | None = None

    @property
    def deal_width(self) -> int:
        """Cards in a training deal (:meth:`sample_blocks_deals` with :attr:`stubs` stubs)."""
        return 2 * self.hand * (1 + self.stubs)

    @property
    def n_classes(self) -> int:
        return self.classes.n_classes

    def strategy_table(self, name: str) -> StrategyTable:
        return next(b for b in self.strategy_tables if b.name == name)

    def table_rows(self, table: StrategyTable) -> int:
        """Rows of ``table``: one per hand class, or per key of a key table."""
        return self.n_classes if table.keyed == "class" else self.n_keys

    def uniform(self, dtype=np.float32) -> dict[str, np.ndarray]:
        """Every table's uniform strategy, full (rows, *shape) tables."""
        return {t.name: np.full((self.table_rows(t), *t.shape), 1 / t.n_actions, dtype=dtype)
                for t in self.strategy_tables}

    def hand_index(self) -> tuple:
        """(deck_place (52,), choose (N+1, H+1), hand_class (C(N, H),), hand_order (C(N, H), H)): what
        the compiled loops name a hand's class with. A hand's colex index over deck places,
        sum_j choose[place_j, j + 1] (places ascending), gives its class and its canonical card
        order as places in the ascending hand. Built on first use (about a second for 5 cards of 52)."""
        if self._hand_index is None:
            deck, h = self.classes.deck, self.hand
            n = len(deck)
            place = np.full(52, -1, np.int64)
            place[deck] = np.arange(n)
            choose = np.array([[math.comb(i, j) for j in range(h + 1)] for i in range(n + 1)], np.int64)
            combos = combinations(n, h)  # (C(N, H), H) ascending places
            ids, canonical = self.classes.classify_columns(deck[combos].T)
            ascending = deck[combos].T  # (H, n)
            order = (canonical[:, None, :] > ascending[None, :, :]).sum(1).T  # (n, H) place in the ascending hand
            colex = sum(choose[combos[:, j], j + 1] for j in range(h))
            hand_class = np.empty(len(combos), np.int64)
            hand_order = np.empty((len(combos), h), np.int64)
            hand_class[colex], hand_order[colex] = ids, order
            self._hand_index = place, choose, hand_class, hand_order.astype(np.int8)
        return self._hand_index

    def _classify(self, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """((D,) class ids, (H, D) canonical orders) of hands given column-wise (H, D), compiled."""
        place, choose, hand_class, hand_order = self.hand_index()
        return compiled.classify(np.ascontiguousarray(np.asarray(cols, dtype=np.int32).T), place, choose,
                                 hand_class, hand_order)

    def sample_deals(self, seed: int, shard: int, iteration: int, n: int) -> np.ndarray:
        """(n, 4H) int32 deals drawn from the stream keyed by (seed, shard, iteration).

        Columns: button hand [0:H], big blind hand [H:2H], stub top [2H:4H] (the big blind draws
        stub[0:k2], the button stub[k2:k2+k1]). A partial Fisher-Yates shuffle of 4H positions.
        """
        rng = np.random.Generator(np.random.Philox(key=seed, counter=[0, UNIFORM_DOMAIN, shard, iteration]))
        deck = self.classes.deck
        perm = np.tile(np.arange(len(deck), dtype=np.int32), (n, 1))  # (n, N) one row per deal
        return deck[_shuffle_top(perm, 4 * self.hand, rng)].astype(np.int32)

    def sample_deals_of_classes(self, seed: int, stream: int, player: int, first: int, stop: int,
                                per_class: int, stubs: int = 1) -> np.ndarray:
        """(n * per_class, 2H + 2H stubs) deals in which ``player`` holds a hand of each class in
        [first, stop), ``per_class`` deals per class in class order (see :meth:`sample_class_deals`;
        the stream keyed by (seed, CLASS_DOMAIN, stream, first))."""
        counts = np.full(stop - first, per_class)
        return self.sample_class_deals(seed, (CLASS_DOMAIN, stream, first), player, first, counts, stubs)

    def sample_class_deals(self, seed: int, key: tuple[int, int, int], player: int, first: int,
                           counts: np.ndarray, stubs: int = 1) -> np.ndarray:
        """(counts.sum(), 2H + 2H stubs) deals in which ``player`` holds ``counts[i]`` hands of class
        first + i, in class order, the other cards uniform from the rest of the deck; drawn from the
        stream keyed by (seed, *key). The class's canonical hand stands for all of its hands: the game
        and class strategies do not change under a permutation of suits."""
        return self.sample_blocks_deals(seed, [key], player, first, [counts], stubs)

    def sample_blocks_deals(self, seed: int, keys: list[tuple[int, int, int]], player: int, first: int,
                            counts: list[np.ndarray], stubs: int = 1, before: np.ndarray | None = None) -> np.ndarray:
        """The deals of :meth:`sample_class_deals` of consecutive runs of classes from ``first``, run i
        with ``counts[i]`` and the stream keyed by (seed, *keys[i]), in one call: the same deals as
        one call per run (each deal's cards are its own row's), for less fixed work per run. With
        ``stubs`` > 1 each deal holds that many stubs, (n, 2H + 2H stubs) (:func:`~distcfr.engine.
        draw27_compiled.draw_deals`): :meth:`class_sums` gives the mean over a deal's stubs. With
        ``before`` (per class, its deals drawn before these) the other hand is not drawn but walked in
        the class's cycle (:func:`~distcfr.engine.draw27_compiled.draw_cycle_deals`, the starts named by
        the seed and the player): still uniform deal by deal, every other hand once per cycle, and one
        visit's deals spread over the other hands' strength (less noise a visit: stratified)."""
        deck, h = self.classes.deck, self.hand
        counts = [np.asarray(c) for c in counts]
        every = np.concatenate(counts) if len(counts) > 1 else counts[0]
        hands = np.repeat(self.classes.representative(np.arange(first, first + len(every))), every, axis=0)
        if not len(hands):
            return np.empty((0, 2 * h + 2 * h * stubs), dtype=np.int32)
        spread = self.spread and stubs > 1
        per_deal = compiled.stub_words(h, stubs) if before is None else compiled.cycle_words(h, stubs, spread)
        words = [_stream_words(seed, key, int(c.sum()) * per_deal) for key, c in zip(keys, counts) if c.sum()]
        words = (np.concatenate(words) if len(words) > 1 else words[0]).reshape(len(hands), per_deal)
        place, choose = self.hand_index()[:2]
        if before is None:
            return compiled.draw_deals(hands.astype(np.int32), player, words, place, deck.astype(np.int32), stubs)
        starts = np.repeat(np.cumsum(every) - every, every)
        positions = np.repeat(np.asarray(before, np.int64), every) + np.arange(len(hands)) - starts
        classes = np.repeat(np.arange(first, first + len(every), dtype=np.uint64), every)
        cycle_keys = _stream_words(seed, (CYCLE_DOMAIN, player, 0), 1)[0] + classes * _GOLDEN  # wraps
        return compiled.draw_cycle_deals(hands.astype(np.int32), player, positions, cycle_keys, words, place,
                                         deck.astype(np.int32), stubs, choose, spread)

    def classes_held(self, deals: np.ndarray, player: int) -> np.ndarray:
        """(D,) the hand class ``player`` holds in each deal."""
        h = self.hand
        return self.classes.classify(np.asarray(deals)[:, player * h:(player + 1) * h])[0]

    def other_classes(self, deals: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
        """((D,) classes, (H, D) canonical orders) of the hands of the player other than ``player``
        (what :meth:`class_sums` takes as ``other``)."""
        h, u = self.hand, 1 - player
        return self._classify(np.asarray(deals)[:, u * h:(u + 1) * h].T)


_STREAMS = threading.local()  # one Philox per thread, its state set per stream: cheaper than a new one


def _stream_words(seed: int, key: tuple, n: int) -> np.ndarray:
    """(n,) uint64: the first n words of the Philox stream keyed by (seed, 0, *key)."""
    bits = getattr(_STREAMS, "philox", None)
    if bits is None:
        bits = _STREAMS.philox = np.random.Philox(key=0)
    bits.state = {"bit_generator": "Philox", "state": {"counter": np.array([0, *key], np.uint64),
                                                       "key": np.array([seed & (2**64 - 1), seed >> 64], np.uint64)},
                  "buffer": np.zeros(4, np.uint64), "buffer_pos": 4, "has_uint32": 0, "uinteger": 0}
    return bits.random_raw(n)


def _shuffle_top(perm: np.ndarray, picks: int, rng: np.random.Generator) -> np.ndarray:
    """(n, picks) the first ``picks`` places of a partial Fisher-Yates shuffle of each row of
    ``perm`` (n, N), shuffled in place (a deal's cards in one row: its swaps stay in cache)."""
    return _shuffled_top(perm, _shuffle_offsets(rng, perm.shape[0], perm.shape[1], picks))


def _shuffle_offsets(rng: np.random.Generator, n: int, size: int, picks: int) -> np.ndarray:
    """(picks, n) the swaps of :func:`_shuffle_top` of n rows of ``size``: place i with i + offset."""
    return rng.integers(0, size - np.arange(picks)[:, None], size=(picks, n))


def _shuffled_top(perm: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(n, picks) :func:`_shuffle_top` with its swaps drawn (``offsets``, (picks, n))."""
    n, size = perm.shape
    flat = perm.reshape(-1)
    base = np.arange(n) * size
    for i in range(len(offsets)):
        j = base + i + offsets[i]
        top = perm[:, i].copy()
        perm[:, i] = flat[j]
        flat[j] = top
    return perm[:, :len(offsets)]



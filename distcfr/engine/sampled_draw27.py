"""Chance-sampled CFR kernel for deuce-to-seven single draw (``draw27``) at any size, up to 52 cards / 5 each.

The game is ``distcfr.games.draw27``'s (button = player 0 pushes or folds, big blind = player 1 calls or
folds, the big blind draws, then the button draws knowing how many cards the big blind took), but its
chance is sampled: a deal is both hands plus the order of the stub, so only the players' own actions are
enumerated. Strategies live in per-class tables (:mod:`distcfr.games.hand_classes`), one row per class of
suit-isomorphic hands, the stack axis next to the action axis so one gather brings every stack:

* ``btn_push`` (C, B, 2) [fold, push] and ``btn_draw`` (C, H+1, B, M) [class, big blind's draw count k,
  stack, mask], player 0; ``bb_call`` (C, B, 2) [fold, call] and ``bb_draw`` (C, B, M), player 1.

Discard mask bit j discards position j of the hand's canonical card order. Deals come from counter-based
streams (Philox keyed by the seed and the caller's key). Plain numpy, float32: ``class_sums`` evaluates a
hand class's deals together (one batched matmul per draw-count group over the class's deals and the other
player's masks), so a class's sums depend only on its own deals, whatever else shares the call, and a run
is the same on any number of workers. ``deal_values`` and ``class_deal_values`` give payoffs per deal
(simulated matches, the exploitability bracket); the same strategy in the exact game is ``to_exact``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.cards import CARD_KEYS, rank_of_keys
from distcfr.engine.layout import Layout
from distcfr.engine.rules import sum_last
from distcfr.errors import BadParameter
from distcfr.games.draw27 import Draw27
from distcfr.games.hand_classes import hand_classes

_WORK = np.float32  # sigma gathers and per-deal products; class sums are float64
_CHUNK_FLOATS = 1 << 19  # per-deal temporaries of one chunk of deals: cache-sized
_MAX_CHUNK = 512  # deals per chunk at most (for one stack)
MAX_STACK = 1e6  # BB: values, products and sums of many deals stay far inside float32's range
_SHOWDOWN_CHUNK = 512  # deals whose rank lookups and showdown signs are computed together


@dataclasses.dataclass(frozen=True)
class Block:
    """One table of the sampled game: ``shape`` is per class, the action axis last."""

    name: str
    player: int
    shape: tuple[int, ...]
    n_actions: int


@dataclasses.dataclass(frozen=True)
class ClassTotals:
    """Batch sums of one block per hand class: rows (G,) class ids, q (G, *shape) counterfactual
    action values in the acting player's payoff, reach (G, B) own reach (float32)."""

    rows: np.ndarray
    q: np.ndarray
    reach: np.ndarray


class SampledDraw27:
    """Sampled draw27 of a ``ranks`` x ``suits`` deck, ``hand`` cards each, one table column per stack."""

    def __init__(self, ranks: int = 13, suits: int = 4, hand: int = 5, stacks=(3.0,)):
        if ranks * suits < 4 * hand:
            raise BadParameter(f"a deck of {ranks * suits} cards is too small for {hand}-card hands and two full draws")
        self.classes = hand_classes(ranks, suits, hand)
        self.ranks, self.suits, self.hand = ranks, suits, hand
        self.stacks = np.asarray(stacks, dtype=np.float64).reshape(-1)  # (B,)
        if self.stacks.max() > MAX_STACK:
            raise BadParameter(f"stack {self.stacks.max():g} BB is beyond what the sampled kernel computes (float32 "
                               f"values): at most {MAX_STACK:g} BB")
        h, m, b = hand, 1 << hand, len(self.stacks)
        self.n_masks = m
        self.blocks = (Block("btn_push", 0, (b, 2), 2), Block("btn_draw", 0, (h + 1, b, m), m),
                       Block("bb_call", 1, (b, 2), 2), Block("bb_draw", 1, (b, m), m))
        self.mask_size = np.array([bin(x).count("1") for x in range(m)])  # (M,) cards drawn per mask
        self.keep = ((np.arange(m)[None, :] >> np.arange(h)[:, None]) & 1 == 0).astype(np.int32)  # (H, M)
        self.order = np.argsort(self.mask_size, kind="stable")  # (M,) masks by draw count: groups k = 0..H
        self.rank = np.argsort(self.order)  # (M,) place of each mask in that order
        ends = np.cumsum(np.bincount(self.mask_size))
        self.bounds = list(zip(ends - np.bincount(self.mask_size), ends))  # [lo, hi) of each group k
        self.chunk = int(np.clip(_CHUNK_FLOATS // ((h + 1) * b * m), 16, _MAX_CHUNK))
        self._class_chunk = int(np.clip(4 * _CHUNK_FLOATS // ((h + 1) * b * m + m * m), 16, 4 * _MAX_CHUNK))

    # per player, the blocks a best response sets, in order: the draws first (from summed counterfactual
    # values), then push or call given the chosen draws
    response_order = (("btn_draw", "btn_push"), ("bb_draw", "bb_call"))

    @property
    def n_classes(self) -> int:
        return self.classes.n_classes

    def to_exact(self, tables: dict[str, np.ndarray]):
        """(layout, probs): these class tables as a table of the exact game (:func:`to_exact_strategy`)."""
        return to_exact_strategy(self, tables)

    def block(self, name: str) -> Block:
        return next(b for b in self.blocks if b.name == name)

    def uniform(self, dtype=np.float32) -> dict[str, np.ndarray]:
        """Every block's uniform strategy, full (C, *shape) tables."""
        return {b.name: np.full((self.n_classes, *b.shape), 1 / b.n_actions, dtype=dtype) for b in self.blocks}

    # ---- deals ------------------------------------------------------------------------------------
    def sample_deals(self, seed: int, shard: int, iteration: int, n: int) -> np.ndarray:
        """(n, 4H) int32 deals drawn from the stream keyed by (seed, shard, iteration).

        Columns: button hand [0:H], big blind hand [H:2H], stub top [2H:4H] (the big blind draws
        stub[0:k2], the button stub[k2:k2+k1]). A partial Fisher-Yates shuffle of 4H positions.
        """
        rng = np.random.Generator(np.random.Philox(key=seed, counter=[0, 0, shard, iteration]))
        deck = self.classes.deck
        perm = np.tile(np.arange(len(deck), dtype=np.int32), (n, 1))  # (n, N) one row per deal
        return deck[_shuffle_top(perm, 4 * self.hand, rng)].astype(np.int32)

    def sample_deals_of_classes(self, seed: int, stream: int, player: int, first: int, stop: int,
                                per_class: int) -> np.ndarray:
        """(n * per_class, 4H) deals in which ``player`` holds a hand of each class in [first, stop),
        ``per_class`` deals per class in class order (see :meth:`sample_class_deals`; the stream
        keyed by (seed, 1, stream, first))."""
        counts = np.full(stop - first, per_class)
        return self.sample_class_deals(seed, (1, stream, first), player, first, counts)

    def sample_class_deals(self, seed: int, key: tuple[int, int, int], player: int, first: int,
                           counts: np.ndarray) -> np.ndarray:
        """(counts.sum(), 4H) deals in which ``player`` holds ``counts[i]`` hands of class first + i,
        in class order, the other cards uniform from the rest of the deck; drawn from the stream keyed
        by (seed, *key). The class's canonical hand stands for all of its hands: the game and class
        strategies do not change under a permutation of suits."""
        return self.sample_blocks_deals(seed, [key], player, first, [counts])

    def sample_blocks_deals(self, seed: int, keys: list[tuple[int, int, int]], player: int, first: int,
                            counts: list[np.ndarray]) -> np.ndarray:
        """The deals of :meth:`sample_class_deals` of consecutive runs of classes from ``first``, run i
        with ``counts[i]`` and the stream keyed by (seed, *keys[i]), in one call: the same deals as
        one call per run (each deal's cards are its own row's), for less fixed work per run."""
        deck, h = self.classes.deck, self.hand
        counts = [np.asarray(c) for c in counts]
        every = np.concatenate(counts) if len(counts) > 1 else counts[0]
        hands = np.repeat(self.classes.representative(np.arange(first, first + len(every))), every, axis=0)
        if not len(hands):
            return np.empty((0, 4 * h), dtype=np.int32)
        size = len(deck) - h
        offsets = [_shuffle_offsets(np.random.Generator(np.random.Philox(key=seed, counter=[0, *key])),
                                    int(c.sum()), size, 3 * h) for key, c in zip(keys, counts) if c.sum()]
        offsets = np.concatenate(offsets, axis=1) if len(offsets) > 1 else offsets[0]
        rest = np.ones((len(hands), len(deck)), dtype=bool)
        rest[np.arange(len(hands))[:, None], np.searchsorted(deck, hands)] = False
        perm = np.nonzero(rest)[1].reshape(len(hands), -1).astype(np.int32)  # (n, N - H) deck places left
        others = deck[_shuffled_top(perm, offsets)]  # (n, 3H): the other hand, then the stub
        cols = [hands, others[:, :h]] if player == 0 else [others[:, :h], hands]
        return np.concatenate([*cols, others[:, h:]], axis=1).astype(np.int32)

    def other_classes(self, deals: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
        """((D,) classes, (H, D) canonical orders) of the hands of the player other than ``player``
        (what :meth:`class_sums` takes as ``other``)."""
        h, u = self.hand, 1 - player
        return self.classes.classify_columns(np.ascontiguousarray(np.asarray(deals)[:, u * h:(u + 1) * h].T))

    def _columns(self, deals: np.ndarray, known: tuple[int, np.ndarray] | None = None,
                 other: tuple | None = None):
        """Classes and canonical orders of both hands: (c1, c2 (D,), can1, can2 (H, D), stub (2H, D)).
        ``known`` = (player, (D,) classes): that player's hands are those classes' representatives,
        whose canonical order is ascending card id (as drawn by :meth:`sample_class_deals`): not
        classified again; nor are the other player's with ``other`` (:meth:`other_classes`)."""
        cols = np.ascontiguousarray(np.asarray(deals, dtype=np.int32).T)  # (4H, D)
        h = self.hand
        hands = [cols[:h], cols[h:2 * h]]
        found = [self.classes.classify_columns(hands[u]) for u in (0, 1)] if known is None else [None, None]
        if known is not None:
            mine = known[0]
            found[mine] = known[1], hands[mine]
            found[1 - mine] = other if other is not None else self.classes.classify_columns(hands[1 - mine])
        (c1, can1), (c2, can2) = found
        return c1, c2, can1, can2, cols[2 * h:]

    def _showdown(self, can1, can2, stub) -> np.ndarray:
        """(D, M, M) float32 Wt[deal, big blind mask in draw-count order (``self.order``), button mask]:
        +1 when the button's final hand is lower (wins), 0 on a tie, -1 when it loses."""
        h = self.hand
        kept1 = self.keep.T @ CARD_KEYS.take(can1)  # (M, D) int32 key of the kept cards per mask
        kept2 = self.keep.T[self.order] @ CARD_KEYS.take(can2)  # (M, D) big blind masks in draw-count order
        prefix = np.zeros((2 * h + 1, stub.shape[1]), dtype=np.int32)  # (2H+1, D) keys of stub[0:i]
        np.cumsum(CARD_KEYS.take(stub), axis=0, out=prefix[1:])
        rank2 = rank_of_keys(kept2 + prefix[self.mask_size[self.order]], dtype=np.int16).T.copy()  # (D, M)
        k = np.arange(h + 1)[:, None]  # (H+1, 1): the big blind's draw count
        drawn1 = prefix[k + self.mask_size] - prefix[k[:, 0]][:, None]  # (H+1, M, D): stub[k:k+|m1|]
        rank1 = rank_of_keys(kept1 + drawn1, dtype=np.int16).transpose(2, 0, 1).copy()  # (D, H+1, M)
        diff = np.empty((stub.shape[1], self.n_masks, self.n_masks), dtype=np.int16)  # ranks < 2**13: no overflow
        for kk, (lo, hi) in enumerate(self.bounds):
            np.subtract(rank2[:, lo:hi, None], rank1[:, kk, None, :], out=diff[:, lo:hi])
        np.clip(diff, -1, 1, out=diff)  # the sign of integer differences
        return diff.astype(_WORK)

    def showdown_matrix(self, deals: np.ndarray) -> np.ndarray:
        """(D, M, M) int8 W[deal, m1 (button mask), m2 (big blind mask)]: +1 button wins, 0, -1."""
        _, _, can1, can2, stub = self._columns(deals)
        w = np.empty((stub.shape[1], self.n_masks, self.n_masks), dtype=np.int8)
        w[:, :, self.order] = self._showdown(can1, can2, stub).transpose(0, 2, 1)
        return w

    # ---- values -----------------------------------------------------------------------------------
    def _chunk_values(self, sigma, c1, c2, wt, button: bool) -> dict[str, np.ndarray]:
        """Per-deal values of one chunk: p, q, v2 (D, B) and, for the big blind, q_bb_draw (D, B, M)
        (its counterfactual values); with ``button`` also x (D, H+1, B, M), the button's draw values.
        Products are per draw-count group k of big blind masks: batched matmuls over the deals."""
        if len(c1) == 1:  # numpy's matmul of one matrix takes another path: a deal's values must not depend on
            v = self._chunk_values(sigma, np.repeat(c1, 2), np.repeat(c2, 2), np.repeat(wt, 2, axis=0), button)
            return {key: value[:1] for key, value in v.items()}  # how many deals share its chunk
        stacks = self.stacks.astype(_WORK)[:, None]  # (B, 1)
        p = sigma["btn_push"][c1, :, 1].astype(_WORK)  # (D, B)
        q = sigma["bb_call"][c2, :, 1].astype(_WORK)
        d1 = sigma["btn_draw"][c1].astype(_WORK, copy=False)  # (D, H+1, B, M)
        d2 = sigma["bb_draw"][c2][:, :, self.order].astype(_WORK, copy=False)  # (D, B, M) draw-count order
        a = np.empty_like(d2)  # (D, B, M) button's expected showdown per unit stake given the big blind's mask
        for k, (lo, hi) in enumerate(self.bounds):
            np.matmul(d1[:, k], wt[:, lo:hi].transpose(0, 2, 1), out=a[:, :, lo:hi])  # (D, B, M) @ (D, M, n_k)
        v2 = sum_last(d2 * a) * stacks[:, 0]  # (D, B) button's value once called
        out = {"p": p, "q": q, "v2": v2, "q_bb_draw": -(p * stacks[:, 0])[:, :, None] * a[:, :, self.rank]}
        if button:
            w2 = d2 * (q[:, :, None] * stacks)  # (D, B, M) big blind's reach times the stake
            x = np.empty_like(d1)
            for k, (lo, hi) in enumerate(self.bounds):
                if hi - lo == 1:  # stand pat or draw all: an outer product, faster without a BLAS call per deal
                    np.multiply(w2[:, :, lo, None], wt[:, lo, None, :], out=x[:, k])
                else:
                    np.matmul(w2[:, :, lo:hi], wt[:, lo:hi], out=x[:, k])  # (D, B, n_k) @ (D, n_k, M)
            out["x"] = x
        return out

    def class_sums(self, sigma: dict, deals: np.ndarray, player: int, counts: np.ndarray,
                   first: int | None = None, other: tuple | None = None) -> dict[str, ClassTotals]:
        """Batch sums of ``player``'s counterfactual action values and own reach per hand class, for
        deals grouped by that player's class (:meth:`sample_class_deals`: ``counts[i]`` deals of the
        i-th class present, in class order). The same sums as :meth:`cfr_values`, computed per
        class: a class's deals are one contraction (the deal and the other player's mask together),
        a batched matmul over the classes, so nothing per deal is stored. A class's sums depend only
        on its own deals, whatever else is in the call.

        With w2 = the big blind's reach times the stake per mask and Wt the showdown signs, per
        draw-count group k: the button's draw values X_k = sum_deals w2_k Wt_k, its push value
        sum_k d1_k . X_k + sum (1 - q); the big blind's draw values Q_k = -sum_deals (p stake d1_k) Wt_k,
        its call value d2 . Q. With ``first``, the player's hands are the representatives of classes
        first + i (as :meth:`sample_class_deals` draws them) and are not classified again; with
        ``other`` too (:meth:`other_classes` of these deals), neither are the other player's.
        """
        counts = np.asarray(counts)
        present = np.flatnonzero(counts)
        known = None if first is None else (player, np.repeat(np.arange(first, first + len(counts)), counts))
        c1, c2, can1, can2, stub = self._columns(deals, known, other)
        starts = np.concatenate([[0], np.cumsum(counts[present])])
        rows = (c1, c2)[player][starts[:-1]]  # (G,) each class present
        out = {b.name: ClassTotals(rows, np.empty((len(rows), *b.shape), _WORK),
                                   np.empty((len(rows), b.shape[-2]), _WORK))
               for b in self.blocks if b.player == player}
        for n in np.unique(counts[present]):  # classes with as many deals batch together
            same = np.flatnonzero(counts[present] == n)
            step = max(1, self._class_chunk // int(n))
            for lo in range(0, len(same), step):
                at = same[lo:lo + step]  # indices into rows
                picks = (starts[at][:, None] + np.arange(n)).reshape(-1)  # their deals
                wt = self._showdown(can1[:, picks], can2[:, picks], stub[:, picks])  # (G n, M, M)
                part = self._class_values(sigma, rows[at], (c2, c1)[player][picks], wt, int(n), player)
                for name, (q, reach) in part.items():
                    out[name].q[at], out[name].reach[at] = q, reach
        return out

    def _class_values(self, sigma, mine, theirs, wt, n: int, player: int) -> dict[str, tuple]:
        """{block: (q (G, *shape), reach (G, B))} of G classes ``mine`` of ``player`` with n deals each
        (``theirs``: the other player's class per deal, wt: the deals' showdown signs)."""
        if len(mine) == 1:  # numpy's matmul of one matrix takes another path: pad, so a class's sums never
            pad = self._class_values(sigma, np.repeat(mine, 2), np.tile(theirs, 2), np.tile(wt, (2, 1, 1)), n, player)
            return {name: (q[:1], r[:1]) for name, (q, r) in pad.items()}  # depend on how many share its call
        g, b, m = len(mine), len(self.stacks), self.n_masks
        stacks = self.stacks.astype(_WORK)
        wt = wt.reshape(g, n, m, m)  # [class, deal, big blind mask (draw-count order), button mask]
        if player == 0:
            p = sigma["btn_push"][mine, :, 1].astype(_WORK)  # (G, B)
            d1 = sigma["btn_draw"][mine].astype(_WORK, copy=False)  # (G, H+1, B, M)
            q = sigma["bb_call"][theirs, :, 1].astype(_WORK).reshape(g, n, b)
            d2 = sigma["bb_draw"][theirs][:, :, self.order].astype(_WORK, copy=False).reshape(g, n, b, m)
            w2 = d2 * (q * stacks)[..., None]  # (G, n, B, M)
            x = np.empty((g, self.hand + 1, b, m), _WORK)
            for k, (lo, hi) in enumerate(self.bounds):
                left = w2[..., lo:hi].transpose(0, 2, 1, 3).reshape(g, b, n * (hi - lo))
                np.matmul(left, wt[:, :, lo:hi].reshape(g, n * (hi - lo), m), out=x[:, k])
            push = sum_last(sum_last((d1 * x).transpose(0, 2, 1, 3))) + sum_last((1 - q).transpose(0, 2, 1))
            ones = np.full((g, b), n, _WORK)
            return {"btn_push": (np.stack([np.full((g, b), -0.5 * n, _WORK), push], axis=-1), ones),
                    "btn_draw": (x, n * p)}
        p = sigma["btn_push"][theirs, :, 1].astype(_WORK).reshape(g, n, b)
        d1 = sigma["btn_draw"][theirs].astype(_WORK, copy=False).reshape(g, n, self.hand + 1, b, m)
        q = sigma["bb_call"][mine, :, 1].astype(_WORK)  # (G, B)
        d2 = sigma["bb_draw"][mine][:, :, self.order].astype(_WORK, copy=False)  # (G, B, M) draw-count order
        stake = -(p * stacks)  # (G, n, B)
        values = np.empty((g, b, m), _WORK)  # draw-count order
        for k, (lo, hi) in enumerate(self.bounds):
            left = (d1[:, :, k] * stake[..., None]).transpose(0, 2, 1, 3).reshape(g, b, n * m)
            right = wt[:, :, lo:hi].transpose(0, 1, 3, 2).reshape(g, n * m, hi - lo)
            np.matmul(left, right, out=values[:, :, lo:hi])
        call = sum_last(d2 * values)
        fold = -sum_last(p.transpose(0, 2, 1))
        return {"bb_call": (np.stack([fold, call], axis=-1), np.full((g, b), n, _WORK)),
                "bb_draw": (values[:, :, self.rank], n * q)}

    def class_deal_values(self, sigma: dict, deals: np.ndarray, player: int, per_class: int) -> np.ndarray:
        """(D, B) float64 button payoff of each deal under ``sigma`` (draws in expectation), like
        :meth:`deal_values`, for deals grouped by ``player``'s class, ``per_class`` each (a class's
        deals share one product per draw-count group, as in :meth:`class_sums`)."""
        c1, c2, can1, can2, stub = self._columns(deals)
        out = np.empty((len(c1), len(self.stacks)))
        step = max(2, self._class_chunk // per_class) * per_class
        for lo in range(0, len(c1), step):
            cut = slice(lo, lo + step)
            wt = self._showdown(can1[:, cut], can2[:, cut], stub[:, cut])
            out[cut] = self._grouped_deal_values(sigma, c1[cut], c2[cut], wt, per_class, player)
        return out

    def _grouped_deal_values(self, sigma, c1, c2, wt, n: int, player: int) -> np.ndarray:
        g, b, m = len(c1) // n, len(self.stacks), self.n_masks
        if g == 1:  # (as in _class_values: a class's numbers must not depend on its neighbours)
            return self._grouped_deal_values(sigma, np.tile(c1, 2), np.tile(c2, 2), np.tile(wt, (2, 1, 1)), n,
                                             player)[:n]
        stacks = self.stacks.astype(_WORK)
        wt = wt.reshape(g, n, m, m)
        p = sigma["btn_push"][c1, :, 1].astype(_WORK).reshape(g, n, b)
        q = sigma["bb_call"][c2, :, 1].astype(_WORK).reshape(g, n, b)
        if player == 0:  # the button's draws are the class's: a_k = d1_k Wt_k for all its deals at once
            d1 = sigma["btn_draw"][c1[::n]].astype(_WORK, copy=False)  # (G, H+1, B, M)
            d2 = sigma["bb_draw"][c2][:, :, self.order].astype(_WORK, copy=False).reshape(g, n, b, m)
            a = np.empty((g, b, n, m), _WORK)
            for k, (lo, hi) in enumerate(self.bounds):
                right = wt[:, :, lo:hi].transpose(0, 3, 1, 2).reshape(g, m, n * (hi - lo))
                a[..., lo:hi] = np.matmul(d1[:, k], right).reshape(g, b, n, hi - lo)
            v2 = sum_last(d2 * a.transpose(0, 2, 1, 3))  # (G, n, B)
        else:  # the big blind's draws are the class's: y_k = d2_k Wt_k, then v2 = sum over k of d1_k . y_k
            d1 = sigma["btn_draw"][c1].astype(_WORK, copy=False).reshape(g, n, self.hand + 1, b, m)
            d2 = sigma["bb_draw"][c2[::n]][:, :, self.order].astype(_WORK, copy=False)  # (G, B, M)
            v2 = np.zeros((g, n, b), _WORK)
            for k, (lo, hi) in enumerate(self.bounds):
                right = wt[:, :, lo:hi].transpose(0, 2, 1, 3).reshape(g, hi - lo, n * m)
                y = np.matmul(d2[:, :, lo:hi], right).reshape(g, b, n, m).transpose(0, 2, 1, 3)  # (G, n, B, M)
                v2 += sum_last(d1[:, :, k] * y)
        v2 = (v2 * stacks).astype(np.float64).reshape(g * n, b)
        p, q = p.astype(np.float64).reshape(g * n, b), q.astype(np.float64).reshape(g * n, b)
        return -0.5 * (1 - p) + p * ((1 - q) + q * v2)

    def _chunks(self, can1, can2, stub):
        """(deal slice, showdown signs Wt of those deals) per chunk: signs computed ``_SHOWDOWN_CHUNK`` deals at
        a time, products ``self.chunk`` at a time (their temporaries grow with the stacks)."""
        for s in range(0, can1.shape[1], _SHOWDOWN_CHUNK):
            big = slice(s, s + _SHOWDOWN_CHUNK)
            wt = self._showdown(can1[:, big], can2[:, big], stub[:, big])
            for t in range(0, len(wt), self.chunk):
                yield slice(s + t, s + min(len(wt), t + self.chunk)), wt[t:t + self.chunk]

    def deal_values(self, sigma: dict[str, np.ndarray], deals: np.ndarray) -> np.ndarray:
        """(D, B) float64 button payoff of each deal when both players follow ``sigma`` (draws in expectation)."""
        c1, c2, can1, can2, stub = self._columns(deals)
        out = np.empty((len(c1), len(self.stacks)))
        for cut, wt in self._chunks(can1, can2, stub):
            v = self._chunk_values(sigma, c1[cut], c2[cut], wt, button=False)
            p, q, v2 = (v[key].astype(np.float64) for key in ("p", "q", "v2"))
            out[cut] = -0.5 * (1 - p) + p * ((1 - q) + q * v2)
        return out


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


# ---- the same strategy in the exact game ------------------------------------------------------------
def exact_layout(game: SampledDraw27):
    """The infoset layout of the exact ``draw27`` game of the same configuration (the one place that
    uses the exact engine)."""
    exact = Draw27(Draw27.Params(ranks=game.ranks, suits=game.suits, hand=game.hand,
                                 stacks=tuple(float(s) for s in game.stacks)))
    exact.validate()
    return Layout(exact)


def exact_masks(game: SampledDraw27, hands: np.ndarray) -> np.ndarray:
    """(n, M) the exact game's discard mask (bit j = j-th lowest card id) of each canonical mask of each
    hand (n, H): the same cards discarded."""
    _, canonical = game.classes.classify(hands)
    place = (canonical[:, :, None] > np.sort(hands, axis=1)[:, None, :]).sum(2)  # (n, H) ascending place
    bits = (np.arange(game.n_masks)[None, :, None] >> np.arange(game.hand)) & 1  # (1, M, H)
    return (bits << place[:, None, :]).sum(2)


def to_exact_strategy(game: SampledDraw27, tables: dict[str, np.ndarray]):
    """(layout, probs): class tables mapped to the exact game's (n_stacks, n_infosets, max_actions) table."""
    layout = exact_layout(game)
    exact = layout.game
    hands = exact.hands()  # (n_hands, H) ascending
    ids, _ = game.classes.classify(hands)
    masks = exact_masks(game, hands)  # (n_hands, M)
    probs = np.zeros((len(game.stacks), layout.n_infosets, layout.max_actions))
    labels = [exact.hand_label(h) for h in hands]
    row = np.array([[layout.label_index[f"{lab}|{obs}"] for obs in ("", "a", "ac")] for lab in labels])
    for col, name in enumerate(("btn_push", "bb_call")):
        probs[:, row[:, col], :2] = tables[name][ids].transpose(1, 0, 2)
    probs[:, row[:, 2][:, None], masks] = tables["bb_draw"][ids].transpose(1, 0, 2)
    for k in range(game.hand + 1):
        rows_k = np.array([layout.label_index[f"{lab}|ac{k}"] for lab in labels])
        probs[:, rows_k[:, None], masks] = tables["btn_draw"][ids, k].transpose(1, 0, 2)
    return layout, probs

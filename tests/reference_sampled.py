"""Reference chance-sampled CFR for :mod:`distcfr.engine.sampled_draw27`: the per-deal path (each deal's
values rounded to fixed point and summed exactly, :func:`cfr_values`) and a small driver on it.

``solve_sampled`` is deliberately small: dense float64 regrets and strategy sums per block, alternating
updates, linear CFR in weighted form or vanilla CFR. It is the reference a distributed solver is checked
against, not a fast solver.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from distcfr.engine.sampled_draw27 import SampledDraw27
from distcfr.errors import BadParameter


@dataclasses.dataclass(frozen=True)
class ClassSums:
    """Batch sums of one block for the classes the batch touched, in fixed point.

    rows (n,) sorted unique class ids; fixed_q (n, *shape) int64 counterfactual action values in the
    acting player's payoff and fixed_reach (n, *shape[:-1]) int64 own reach, both times 2**bits. Each
    deal's values are rounded to fixed point before any sum, so sums are exact: the same whatever the
    order, the grouping of deals or the number of workers.
    """

    rows: np.ndarray
    fixed_q: np.ndarray
    fixed_reach: np.ndarray
    bits: int

    @property
    def q(self) -> np.ndarray:
        return self.fixed_q * 2.0 ** -self.bits

    @property
    def reach(self) -> np.ndarray:
        return self.fixed_reach * 2.0 ** -self.bits

    def __add__(self, other: ClassSums) -> ClassSums:
        """The sums of two batches: rows merged, values added."""
        if self.bits != other.bits:
            raise ValueError(f"fixed-point sums of {self.bits} and {other.bits} bits do not add")
        if len(self.rows) == len(other.rows) and np.array_equal(self.rows, other.rows):
            return ClassSums(self.rows, self.fixed_q + other.fixed_q, self.fixed_reach + other.fixed_reach, self.bits)
        size = max(self.rows[-1] if len(self.rows) else -1, other.rows[-1] if len(other.rows) else -1) + 1
        present = np.zeros(size, dtype=bool)  # the union of two sorted row sets, without a sort
        present[self.rows] = present[other.rows] = True
        rows = np.flatnonzero(present)
        place = np.cumsum(present) - 1  # row id -> its place in ``rows``
        q = np.zeros((len(rows), *self.fixed_q.shape[1:]), dtype=np.int64)
        reach = np.zeros((len(rows), *self.fixed_reach.shape[1:]), dtype=np.int64)
        for part in (self, other):
            at = place[part.rows]
            q[at] += part.fixed_q
            reach[at] += part.fixed_reach
        return ClassSums(rows, q, reach, self.bits)


def fixed_point_bits(game: SampledDraw27, batch: int) -> int:
    """Fraction bits of the fixed-point sums of ``batch`` deals: as many as int64 holds without
    overflow (a deal's values are at most the largest stack, its reach at most 1), 40 at most."""
    bound = batch * (float(game.stacks.max()) + 1)
    bits = min(40, 62 - math.ceil(math.log2(bound)))
    if bits < 16:
        raise BadParameter(f"a batch of {batch:,} deals is too large for exact sums at stacks up to "
                           f"{game.stacks.max():g}")
    return bits


SHOWDOWN_CHUNK = 256  # deals whose showdown signs are computed together
_WORK = np.float32


def showdown_chunks(game: SampledDraw27, can1, can2, stub):
    """(deal slice, showdown signs Wt (D, M, M), big blind masks in draw-count order) per chunk of deals."""
    for s in range(0, can1.shape[1], SHOWDOWN_CHUNK):
        cut = slice(s, s + SHOWDOWN_CHUNK)
        yield slice(s, s + len(stub[0, cut])), game._showdown(can1[:, cut], can2[:, cut], stub[:, cut])


def chunk_values(game: SampledDraw27, sigma, c1, c2, wt, button: bool) -> dict[str, np.ndarray]:
    """Per-deal values of one chunk: p, q, v2 (D, B) and, for the big blind, q_bb_draw (D, B, M)
    (its counterfactual values); with ``button`` also x (D, H+1, B, M), the button's draw values.
    Products per draw-count group k of big blind masks, deal by deal (batched matmuls)."""
    if len(c1) == 1:  # numpy's matmul of one matrix takes another path: a deal's values must not depend on
        v = chunk_values(game, sigma, np.repeat(c1, 2), np.repeat(c2, 2), np.repeat(wt, 2, axis=0), button)
        return {key: value[:1] for key, value in v.items()}  # how many deals share its chunk
    stacks = game.stacks.astype(_WORK)[:, None]  # (B, 1)
    order, back = game.order, np.argsort(game.order)
    p = np.asarray(sigma["btn_push"][c1, :, 1], dtype=_WORK)  # (D, B)
    q = np.asarray(sigma["bb_call"][c2, :, 1], dtype=_WORK)
    d1 = np.asarray(sigma["btn_draw"][c1], dtype=_WORK)  # (D, H+1, B, M)
    d2 = np.asarray(sigma["bb_draw"][c2][:, :, order], dtype=_WORK)  # (D, B, M) draw-count order
    a = np.empty_like(d2)  # (D, B, M) button's expected showdown per unit stake given the big blind's mask
    for k, (lo, hi) in enumerate(game.bounds):
        a[:, :, lo:hi] = np.matmul(d1[:, k], wt[:, lo:hi].transpose(0, 2, 1))  # (D, B, M) @ (D, M, n_k)
    v2 = (d2 * a).sum(-1) * stacks[:, 0]  # (D, B) button's value once called
    out = {"p": p, "q": q, "v2": v2, "q_bb_draw": -(p * stacks[:, 0])[:, :, None] * a[:, :, back]}
    if button:
        w2 = d2 * (q[:, :, None] * stacks)  # (D, B, M) big blind's reach times the stake
        x = np.empty_like(d1)
        for k, (lo, hi) in enumerate(game.bounds):
            x[:, k] = np.matmul(w2[:, :, lo:hi], wt[:, lo:hi])  # (D, B, n_k) @ (D, n_k, M)
        out["x"] = x
    return out


def block_values(v, ones) -> dict[str, tuple]:
    """Table name -> (per-deal action values, per-deal own reach (D, B)) from :func:`chunk_values`."""
    p, q, v2 = v["p"], v["q"], v["v2"]
    out = {"bb_call": (np.stack([-p, -p * v2], axis=-1), ones), "bb_draw": (v["q_bb_draw"], q)}
    if "x" in v:
        out["btn_push"] = (np.stack([-0.5 * ones, q * v2 + (1 - q)], axis=-1), ones)
        out["btn_draw"] = (v["x"], p)
    return out


def cfr_values(game: SampledDraw27, sigma: dict[str, np.ndarray], deals: np.ndarray, players=(0, 1),
               bits: int | None = None) -> dict[str, ClassSums]:
    """Batch sums of counterfactual action values and own reach, per block of ``players``, deal by
    deal (the per-deal path the production kernel's per-class ``class_sums`` is checked against).

    sigma: block name -> current strategy (C, *shape) float32 or float64; deals: (D, 4H) from
    ``game.sample_deals``; bits: of the fixed-point sums (default: ``fixed_point_bits(game, D)``; sums
    that will be added together need the same). Returns block name -> :class:`ClassSums`.
    """
    bits = fixed_point_bits(game, max(len(deals), 1)) if bits is None else bits
    c1, c2, can1, can2, stub = game._columns(deals)
    first = 0 if 0 in players else 1  # deals sorted by this player's class: its sums are added chunk by chunk
    order = np.argsort((c1, c2)[first], kind="stable")
    c1, c2, can1, can2, stub = c1[order], c2[order], can1[:, order], can2[:, order], stub[:, order]
    classes = (c1, c2)  # per player
    sums = {b.name: (_Accumulator(classes[b.player], b.shape, bits, game.n_classes), b.player)
            for b in game.strategy_tables if b.player in players}
    later: dict[str, list] = {}  # the other player's (smaller) per-deal values, summed once at the end
    for cut, wt in showdown_chunks(game, can1, can2, stub):
        v = chunk_values(game, sigma, c1[cut], c2[cut], wt, button=0 in players)
        for name, (q, reach) in block_values(v, np.ones_like(v["p"])).items():
            if name in sums and sums[name][1] == first:
                sums[name][0].add(classes[first][cut], q, reach)
            elif name in sums:
                later.setdefault(name, []).append((q, reach))
    for name, parts in later.items():
        sums[name][0].add(classes[1 - first], *(np.concatenate(x) for x in zip(*parts)))
    return {name: acc.result() for name, (acc, _) in sums.items()}


class _Accumulator:
    """Fixed-point sums of per-deal rows by class over a batch: each deal's values are rounded to
    multiples of 2**-bits first, so the int64 sums are exact and independent of the order of deals."""

    def __init__(self, classes: np.ndarray, shape: tuple[int, ...], bits: int, n_classes: int):
        self.rows = np.unique(classes)  # (n,) sorted
        if 2 * len(self.rows) > n_classes:  # most classes: every row (zeros add nothing), sums add without a scatter
            self.rows = np.arange(n_classes)
        self.q = np.zeros((len(self.rows), *shape), dtype=np.int64)
        self.reach = np.zeros((len(self.rows), shape[-2]), dtype=np.int64)  # (n, B): the reach does not depend on k
        self.shape, self.scale, self.bits = shape, 2.0**bits, bits

    def add(self, classes: np.ndarray, q: np.ndarray, reach: np.ndarray) -> None:
        """Add per-deal rows q (D, *shape), reach (D, B) of deals of classes (D,)."""
        at = np.searchsorted(self.rows, classes)  # (D,) accumulator row of each deal
        q, reach = self._fixed(q), self._fixed(reach)
        if not (np.diff(at) > 0).all():  # classes repeat: sum their deals first
            order = np.argsort(at, kind="stable") if (np.diff(at) < 0).any() else slice(None)
            at = at[order]
            starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])
            q, reach, at = np.add.reduceat(q[order], starts), np.add.reduceat(reach[order], starts), at[starts]
        if len(at) and at[-1] - at[0] == len(at) - 1:  # consecutive rows (deals sorted by class): a slice
            at = slice(at[0], at[-1] + 1)
        self.q[at] += q
        self.reach[at] += reach

    def _fixed(self, values: np.ndarray) -> np.ndarray:
        """Rounded toward zero: any fixed rounding of each deal's values keeps the sums exact. Scaling
        by a power of two is exact in the values' own precision (float32: half the memory traffic)."""
        return np.multiply(values, values.dtype.type(self.scale)).astype(np.int64)

    def result(self) -> ClassSums:
        reach = np.broadcast_to(self.reach.reshape(len(self.rows), *(1,) * (len(self.shape) - 2), -1),
                                (len(self.rows), *self.shape[:-1]))
        return ClassSums(self.rows, self.q, np.ascontiguousarray(reach), self.bits)


# (iteration weight of regrets, of strategy sums)
RULES = {"lcfr": (float, float), "cfr": (lambda t: 1.0, lambda t: 1.0), "lcfr-cubic": (float, lambda t: float(t) ** 3),
         "lcfr-square": (float, lambda t: float(t) ** 2),
         "lcfr-flat": (lambda t: float(min(t, 1000)), lambda t: float(min(t, 1000)) ** 2)}


def stub_mean_values(game: SampledDraw27, sigma: dict[str, np.ndarray], deals: np.ndarray,
                     players=(0, 1)) -> dict[str, tuple]:
    """block name -> (rows, q, reach) float64 of deals holding several stubs each (``(D, 2H + 2H S)``,
    ``game.sample_blocks_deals``): :func:`cfr_values` of the deals with each stub in turn, averaged
    over the stubs (the stubs are exchangeable: each is a uniform stub given the hands)."""
    h = game.hand
    stubs = (deals.shape[1] - 2 * h) // (2 * h)
    bits = fixed_point_bits(game, max(len(deals), 1))
    parts = [cfr_values(game, sigma, np.concatenate([deals[:, :2 * h], deals[:, 2 * h * (1 + s):2 * h * (2 + s)]], 1),
                        players, bits) for s in range(stubs)]
    total = {name: sum((p[name] for p in parts[1:]), parts[0][name]) for name in parts[0]}
    return {name: (t.rows, t.q / stubs, t.reach / stubs) for name, t in total.items()}


def regret_matching(regrets: np.ndarray) -> np.ndarray:
    """Strategy proportional to positive regret over the last axis; uniform where none is positive."""
    positive = np.maximum(regrets, 0.0)
    total = positive.sum(-1, keepdims=True)
    n = regrets.shape[-1]
    return np.divide(positive, total, out=np.full_like(positive, 1 / n), where=total > 0)


def solve_sampled(ranks: int, suits: int, hand: int, stacks, iterations: int, batch: int, seed: int,
                  rule: str = "lcfr", deal_shares: tuple[int, int] = (1, 1)) -> dict[str, np.ndarray]:
    """Average strategy (block name -> (C, *shape) float64) after ``iterations`` of chance-sampled CFR.

    Each iteration updates the button on ``batch`` times its ``deal_shares`` deals (of ``game.stubs``
    stubs each), then the big blind on its share, each against the other's current strategy (alternating
    updates). A player's half of h deals at iteration t takes places [(t - 1) h, t h) of the endless round
    of hand classes 0, 1, ..., C - 1, 0, ...; its deals
    are those of one shard: stream (seed, 2, 2t + player, 0), the player holding each class's
    canonical hand.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {sorted(RULES)}, not {rule!r}")
    game = SampledDraw27(ranks, suits, hand, stacks)
    weight, sum_weight = RULES[rule]
    regrets = {b.name: np.zeros((game.n_classes, *b.shape)) for b in game.strategy_tables}
    sums = {b.name: np.zeros((game.n_classes, *b.shape)) for b in game.strategy_tables}
    for t in range(1, iterations + 1):
        for player in (0, 1):
            sigma = {name: regret_matching(r) for name, r in regrets.items()}
            half = batch * deal_shares[player]
            counts = np.bincount(np.arange((t - 1) * half, t * half) % game.n_classes, minlength=game.n_classes)
            before = (t - 1) * half // game.n_classes + (np.arange(game.n_classes) < (t - 1) * half % game.n_classes)
            deals = game.sample_blocks_deals(seed, [(2, 2 * t + player, 0)], player, 0, [counts], game.stubs,
                                             before if game.cycle else None)
            for name, (rows, q, reach) in stub_mean_values(game, sigma, deals, players=(player,)).items():
                s = sigma[name][rows]
                regrets[name][rows] += weight(t) * (q - (s * q).sum(-1, keepdims=True))
                sums[name][rows] += sum_weight(t) * reach[..., None] * s
    return {name: regret_matching(s) for name, s in sums.items()}  # normalised sums; uniform where unreached



"""Shard sets: the typed interface the coordinator drives, and its plain-Python implementation.

Sums over shards follow one fixed binary tree over the shard indices (the root splits
[0, K) at K // 2, and so on down to single shards), whoever computes them: a worker that
holds a whole subtree adds it up itself and sends one partial sum instead of one per shard,
and the coordinator adds the partials along the same tree. So the merged sums are bitwise
the same for any number of workers, and fewer bytes travel.

Every method says next to its definition whether it may simply be rerun after its worker
was lost (``@rerunnable``: it depends only on its arguments and the shard's deals) or not
(``@stateful``: it continues work begun by an earlier call; a replaced worker answers it
with ``BestResponseStateLost`` and the caller redoes the whole step).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from distcfr.engine.best_response import BestResponseKernel
from distcfr.engine.cfr_kernel import CFRKernel
from distcfr.engine.layout import Layout
from distcfr.engine.shard import Shard


def rerunnable(method):
    """Mark a shard method that may be rerun as is on a replacement worker."""
    method.rerunnable = True
    return method


def stateful(method):
    """Mark a shard method that relies on state left by earlier calls."""
    method.rerunnable = False
    return method


class ShardSet(Protocol):
    """What the solver and the evaluator call; sums are tree sums over all shards."""

    n_shards: int

    def cfr_sums(self, sigma: np.ndarray, players: tuple[int, ...]) -> dict:
        """{p: (Q_p (B, n_p, A), own reach_p (B, n_p))} for each player in ``players``."""

    def profile_value(self, sigma: np.ndarray) -> np.ndarray:
        """(B,) player 1's expected payoff under ``sigma``."""

    def br_start(self, sigma: np.ndarray) -> None:
        """Begin both players' best responses to ``sigma``."""

    def br_level_q(self, level: int) -> np.ndarray | None:
        """(B, n_rows, A) summed action values of the level's infosets, or None."""

    def br_level_apply(self, level: int, best: np.ndarray) -> None:
        """Play the chosen actions ``best`` (B, n_rows) at the level."""

    def br_root(self) -> np.ndarray:
        """(2, B) both players' best-response values."""

    def describe(self) -> dict:
        """{"workers", "nodes", "shards"} for progress and summaries."""

    def close(self) -> None:
        """Release the workers (a no-op in-process)."""


def exact_kernels(layout: Layout, start: int, stop: int):
    """The (CFR, best response) kernels of one shard, in the game's exact form: dense over deals, or
    per player over its private states (``Game.exact_form``)."""
    if layout.game.exact_form == "ranges":
        from distcfr.engine.ranges import RangeBestResponseKernel, RangeCFRKernel, RangeShard

        shard = RangeShard(layout, start, stop)
        return RangeCFRKernel(shard), RangeBestResponseKernel(shard)
    shard = Shard(layout, start, stop)
    return CFRKernel(shard), BestResponseKernel(shard)


class ShardGroup:
    """Shards [first, stop) of one game (what a Ray actor wraps). ``game`` is a spec string (an
    actor builds its own deal arrays from it) or an already built Layout. Each method returns
    {(lo, hi): sum} over the largest subtrees of the shard tree that this group holds."""

    def __init__(self, game: str | Layout, n_shards: int, first: int, stop: int):
        if isinstance(game, str):
            from distcfr.games.registry import load_game

            game = Layout(load_game(game))
        bounds = game.shard_bounds(n_shards)
        self.n_shards, self.first, self.stop = n_shards, first, stop
        kernels = [exact_kernels(game, *bounds[i]) for i in range(first, stop)]
        self.cfr = [cfr for cfr, _ in kernels]
        self.br = [br for _, br in kernels]

    def _sums(self, results: list) -> dict:
        return subtree_sums(dict(enumerate(results, self.first)), 0, self.n_shards, self.first, self.stop)

    @rerunnable
    def cfr_sums(self, sigma: np.ndarray, players: tuple[int, ...]) -> dict:
        return self._sums([k.cfr_sums(sigma, players) for k in self.cfr])

    @rerunnable
    def profile_value(self, sigma: np.ndarray) -> dict:
        return self._sums([k.profile_value(sigma) for k in self.br])

    @rerunnable
    def br_start(self, sigma: np.ndarray) -> None:
        for k in self.br:
            k.br_start(sigma)

    @stateful
    def br_level_q(self, level: int) -> dict:
        return self._sums([k.br_level_q(level) for k in self.br])

    @stateful
    def br_level_apply(self, level: int, best: np.ndarray) -> None:
        for k in self.br:
            k.br_level_apply(level, best)

    @stateful
    def br_root(self) -> dict:
        return self._sums([k.br_root() for k in self.br])


class ShardSetBase:
    """The ShardSet methods, for implementations that only say how to run a ShardGroup method
    on every group (``_run``: one result per group) and merge the partial sums the same way."""

    n_shards: int

    def _run(self, method: str, args: tuple) -> list:
        raise NotImplementedError

    def abandon(self) -> None:
        """Give up the evaluations in flight on a stop request (workers on Ray; nothing in this process)."""

    def _total(self, method: str, *args):
        partials = {}
        for group_partials in self._run(method, args):
            partials.update(group_partials)
        return combine(partials, 0, self.n_shards)

    def cfr_sums(self, sigma: np.ndarray, players: tuple[int, ...]) -> dict:
        return self._total("cfr_sums", sigma, tuple(players))

    def profile_value(self, sigma: np.ndarray) -> np.ndarray:
        return self._total("profile_value", sigma)

    def br_start(self, sigma: np.ndarray) -> None:
        self._run("br_start", (sigma,))

    def br_level_q(self, level: int) -> np.ndarray | None:
        return self._total("br_level_q", level)

    def br_level_apply(self, level: int, best: np.ndarray) -> None:
        self._run("br_level_apply", (level, best))

    def br_root(self) -> np.ndarray:
        return self._total("br_root")


class LocalShards(ShardSetBase):
    """All shards in this process (no Ray)."""

    def __init__(self, layout: Layout, n_shards: int):
        self.n_shards = n_shards
        self.group = ShardGroup(layout, n_shards, 0, n_shards)

    def _run(self, method: str, args: tuple) -> list:
        return [getattr(self.group, method)(*args)]

    def describe(self) -> dict:
        return {"workers": 0, "nodes": 1, "shards": self.n_shards}

    def close(self) -> None:
        pass


def add(a, b):
    """a + b for arrays, or for equal-shaped tuples/dicts of arrays; None + None is None."""
    if a is None:
        return None
    if isinstance(a, dict):
        return {k: add(a[k], b[k]) for k in a}
    if isinstance(a, tuple):
        return tuple(add(x, y) for x, y in zip(a, b))
    return a + b


def combine(partials: dict, lo: int, hi: int):
    """The tree sum over shards [lo, hi) from partial sums keyed by (lo, hi) subtrees."""
    if (lo, hi) in partials:
        return partials[(lo, hi)]
    mid = (lo + hi) // 2
    return add(combine(partials, lo, mid), combine(partials, mid, hi))


def subtree_sums(results: dict, lo: int, hi: int, first: int, stop: int) -> dict:
    """Sums of the largest subtrees of the tree over [lo, hi) that lie inside [first, stop),
    from per-shard ``results`` {shard: value}."""
    if first <= lo and hi <= stop:
        return {(lo, hi): combine({(i, i + 1): results[i] for i in range(lo, hi)}, lo, hi)}
    if hi <= first or stop <= lo or hi - lo == 1:
        return {}
    mid = (lo + hi) // 2
    return {**subtree_sums(results, lo, mid, first, stop), **subtree_sums(results, mid, hi, first, stop)}

"""A set of shards the coordinator drives.

Sums over shards follow one fixed binary tree over the shard indices (the root splits
[0, K) at K // 2, and so on down to single shards), whoever computes them: a worker that
holds a whole subtree adds it up itself and sends one partial sum instead of one per shard,
and the coordinator adds the partials along the same tree. So the merged sums are bitwise
the same for any number of workers, and fewer bytes travel."""

from __future__ import annotations

from typing import Protocol

from distcfr.solve.layout import Layout
from distcfr.solve.shard_pass import ShardPass


class ShardsRestarted(Exception):
    """A worker was replaced in the middle of a multi-call step and lost its state: the caller
    redoes the whole step (single-call steps are recomputed by the shard set itself)."""


class ShardSet(Protocol):
    n_shards: int

    def map(self, method: str, *args) -> None:
        """Call ``ShardPass.<method>(*args)`` on every shard (for calls that return nothing)."""

    def reduce(self, method: str, *args):
        """Call ``ShardPass.<method>(*args)`` on every shard and return the tree sum of the results."""

    def close(self) -> None: ...


class ShardGroup:
    """Some shards of one game (what a Ray actor wraps). ``game`` is a spec string (an actor
    builds its own deal arrays from it) or an already built Layout."""

    def __init__(self, game: str | Layout, n_shards: int, first: int, stop: int):
        if isinstance(game, str):
            from distcfr.games import load_game

            game = Layout(load_game(game))
        bounds = game.shard_bounds(n_shards)
        self.n_shards, self.first, self.stop = n_shards, first, stop
        self.shards = [ShardPass(game, *bounds[i]) for i in range(first, stop)]

    def map(self, method: str, *args) -> None:
        for shard in self.shards:
            getattr(shard, method)(*args)

    def reduce(self, method: str, *args) -> dict:
        """{(lo, hi): sum} over the largest subtrees of the shard tree that this group holds."""
        results = {self.first + i: getattr(shard, method)(*args) for i, shard in enumerate(self.shards)}
        return subtree_sums(results, 0, self.n_shards, self.first, self.stop)


class LocalShards(ShardGroup):
    """All shards in this process (no Ray)."""

    def __init__(self, layout: Layout, n_shards: int):
        super().__init__(layout, n_shards, 0, n_shards)

    def reduce(self, method: str, *args):
        return combine(super().reduce(method, *args), 0, self.n_shards)

    def close(self) -> None:
        pass

    def describe(self) -> dict:
        return {"workers": 0, "nodes": 1, "shards": self.n_shards}


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

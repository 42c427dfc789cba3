"""A set of shards the coordinator drives: every call runs on each shard and returns the
results in shard order, so merged sums never depend on where the shards ran."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from distcfr.solve.layout import Layout
from distcfr.solve.shard_pass import ShardPass


class ShardsRestarted(Exception):
    """A worker was replaced in the middle of a multi-call step and lost its state: the caller
    redoes the whole step (single-call steps are recomputed by the shard set itself)."""


class ShardSet(Protocol):
    n_shards: int

    def map(self, method: str, *args) -> list:
        """Call ``ShardPass.<method>(*args)`` on every shard; results in shard order."""

    def close(self) -> None: ...


class ShardGroup:
    """Some shards of one game (what a Ray actor wraps). ``game`` is a spec string (an actor
    builds its own deal arrays from it) or an already built Layout."""

    def __init__(self, game: str | Layout, n_shards: int, shard_ids: list[int]):
        if isinstance(game, str):
            from distcfr.games import load_game

            game = Layout(load_game(game))
        bounds = game.shard_bounds(n_shards)
        self.shards = [ShardPass(game, *bounds[i]) for i in shard_ids]

    def map(self, method: str, *args) -> list:
        return [getattr(shard, method)(*args) for shard in self.shards]


class LocalShards(ShardGroup):
    """All shards in this process (no Ray)."""

    def __init__(self, layout: Layout, n_shards: int):
        super().__init__(layout, n_shards, list(range(n_shards)))
        self.n_shards = n_shards

    def close(self) -> None:
        pass

    def describe(self) -> dict:
        return {"workers": 0, "nodes": 1, "shards": self.n_shards}


def sum_in_order(parts: list):
    """Sum arrays (or equal-shaped tuples/dicts of arrays) left to right, in shard order."""
    first = parts[0]
    if isinstance(first, dict):
        return {k: sum_in_order([p[k] for p in parts]) for k in first}
    if isinstance(first, tuple):
        return tuple(sum_in_order([p[i] for p in parts]) for i in range(len(first)))
    total = np.array(first, dtype=np.float64, copy=True)
    for part in parts[1:]:
        total += part
    return total

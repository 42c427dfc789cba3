"""Shards of a chance-sampled solve: each shard draws its own deals every half-iteration from a
counter-based stream keyed by (seed, shard, 2 * iteration + player), so a run is reproducible from
the seed alone, whatever the number of workers, and a worker replaced in the middle of an
iteration draws the same deals again. A group of shards evaluates all of its deals at once; the
sums are exact fixed point (``distcfr.games.draw27_sampled.ClassSums``), so adding the groups' sums
in any order gives the same bits."""

from __future__ import annotations

from functools import reduce
from operator import add

import numpy as np

from distcfr.engine.shard_set import rerunnable
from distcfr.games.registry import load_game


def shard_batch(batch: int, n_shards: int, shard: int) -> int:
    """How many of an iteration's ``batch`` deals shard ``shard`` draws."""
    return batch * (shard + 1) // n_shards - batch * shard // n_shards


class SampledShardGroup:
    """Shards [first, stop) of a sampled game (what a Ray actor wraps); ``spec`` is the game's
    spec string, the kernel is built from it (``Game.sampled()``)."""

    def __init__(self, spec: str, n_shards: int, first: int, stop: int, seed: int, batch: int):
        self.kernel = load_game(spec).sampled()
        self.n_shards, self.first, self.stop, self.seed, self.batch = n_shards, first, stop, seed, batch
        self.bits = self.kernel.fixed_point_bits(batch)  # every group's sums in the same fixed point

    def deals(self, shard: int, iteration: int, player: int) -> np.ndarray:
        n = shard_batch(self.batch, self.n_shards, shard)
        return self.kernel.sample_deals(self.seed, shard, 2 * iteration + player, n)

    @rerunnable
    def cfr_sums(self, sigma: dict, player: int, iteration: int) -> dict:
        """{block: ClassSums} of ``player``'s blocks over this group's shards' deals."""
        deals = np.concatenate([self.deals(k, iteration, player) for k in range(self.first, self.stop)])
        return self.kernel.cfr_values(sigma, deals, players=(player,), bits=self.bits)


class SampledShardSetBase:
    """The typed interface of a sampled shard set over some way to run the groups (``_run``)."""

    n_shards: int

    def _run(self, method: str, args: tuple) -> list:
        raise NotImplementedError

    def cfr_sums(self, sigma: dict, player: int, iteration: int) -> dict:
        """{block: ClassSums}: the batch sums of ``player``'s blocks at ``iteration``."""
        groups = self._run("cfr_sums", (sigma, player, iteration))
        return {name: reduce(add, (group[name] for group in groups)) for name in groups[0]}


class LocalSampledShards(SampledShardSetBase):
    """Every shard in this process."""

    def __init__(self, spec: str, n_shards: int, seed: int, batch: int):
        self.n_shards = n_shards
        self.group = SampledShardGroup(spec, n_shards, 0, n_shards, seed, batch)

    def _run(self, method: str, args: tuple) -> list:
        return [getattr(self.group, method)(*args)]

    def describe(self) -> dict:
        return {"workers": 0, "nodes": 1, "shards": self.n_shards}

    def close(self) -> None:
        pass

"""Shards of a chance-sampled solve: each shard draws its own deals every half-iteration from a
counter-based stream keyed by (seed, shard, 2 * iteration + player), so a run is reproducible from
the seed alone, whatever the number of workers, and a worker replaced in the middle of an
iteration draws the same deals again. Sums over shards follow the same fixed binary tree as the
exact shards (``distcfr.engine.shard_set``)."""

from __future__ import annotations

import numpy as np

from distcfr.engine.shard_set import combine, rerunnable, subtree_sums
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

    def deals(self, shard: int, iteration: int, player: int) -> np.ndarray:
        n = shard_batch(self.batch, self.n_shards, shard)
        return self.kernel.sample_deals(self.seed, shard, 2 * iteration + player, n)

    @rerunnable
    def cfr_sums(self, sigma: dict, player: int, iteration: int) -> dict:
        """{(lo, hi): {block: ClassSums}} of ``player``'s blocks over this group's shards."""
        results = {k: self.kernel.cfr_values(sigma, self.deals(k, iteration, player), players=(player,))
                   for k in range(self.first, self.stop)}
        return subtree_sums(results, 0, self.n_shards, self.first, self.stop)


class SampledShardSetBase:
    """The typed interface of a sampled shard set over some way to run the groups (``_run``)."""

    n_shards: int

    def _run(self, method: str, args: tuple) -> list:
        raise NotImplementedError

    def cfr_sums(self, sigma: dict, player: int, iteration: int) -> dict:
        """{block: ClassSums}: the batch sums of ``player``'s blocks at ``iteration``."""
        partials = {}
        for group_partials in self._run("cfr_sums", (sigma, player, iteration)):
            partials.update(group_partials)
        return combine(partials, 0, self.n_shards)


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

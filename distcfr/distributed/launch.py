"""Starting shard sets on Ray: the embedded Ray or a cluster, and the Ray shard set of each mode.
Which worker count a run uses, and whether it fits, is the library's policy (distcfr.solve.launch)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from distcfr.engine.deal_schedule import DealSchedule


def start_ray(workers: int, address: str | None) -> bool:
    """Join the cluster at ``address``, or start the embedded Ray with a CPU per worker at least;
    returns whether this process started Ray (and must stop it)."""
    from distcfr.distributed.runtime import connect, ray_running, start_embedded

    if address is not None:
        connect(address)
        return False
    started = not ray_running()
    start_embedded(num_cpus=max(workers, os.cpu_count() or 1))
    return started


def available_cpus(address: str | None) -> int:
    """CPUs a run may use: this machine's, or the cluster's (joined first)."""
    if address is None:
        return os.cpu_count() or 1
    from distcfr.distributed.runtime import cluster_cpus, connect

    connect(address)
    return cluster_cpus()


def ray_shard_set(spec: str, n_shards: int, workers: int, ready_timeout: float = 120.0):
    """The exact game's shards on ``workers`` Ray actors (Ray running); TooFewCpus where the cluster
    cannot place them within ``ready_timeout`` seconds."""
    from distcfr.distributed.ray_shards import RayShards

    return RayShards(spec, n_shards, workers, ready_timeout=ready_timeout)


def ray_sampled_shard_set(spec: str, n_blocks: int, workers: int, seed: int, schedule: DealSchedule,
                          ready_timeout: float = 120.0):
    """A sampled game's class blocks on ``workers`` Ray actors (Ray running); TooFewCpus where the cluster
    cannot place them within ``ready_timeout`` seconds."""
    from distcfr.distributed.ray_shards import RayClassBlocks

    return RayClassBlocks(spec, n_blocks, workers, seed, schedule, ready_timeout=ready_timeout)

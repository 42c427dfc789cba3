"""Choosing where the shards run: in this process, on an embedded Ray, or on a cluster."""

from __future__ import annotations

import os

from distcfr.engine.layout import Layout
from distcfr.engine.memory import estimate
from distcfr.engine.shard_set import LocalShards

# A pass over 480 MB of strategy-dependent arrays (10M node x variant x deal cells) takes about
# 200 ms here, while Ray adds 25-90 ms per iteration (two round trips and the merge;
# bench/scaling.py) and ~5 s to start. Below this size "auto" stays in-process (Kuhn, Leduc,
# every draw27 up to 3 cards and a few stacks).
IN_PROCESS_PASS_BYTES = 480_000_000


def auto_workers(layout: Layout, n_shards: int, address: str | None) -> int:
    """0 (in-process) for short passes without a cluster, else one worker per CPU (at most
    one per shard)."""
    if address is None and (estimate(layout, n_shards, 0).pass_bytes < IN_PROCESS_PASS_BYTES or n_shards == 1):
        return 0
    if address is None:
        cpus = os.cpu_count() or 1
    else:
        from distcfr.dist.runtime import cluster_cpus

        cpus = cluster_cpus()
    return max(1, min(cpus, n_shards))


def resolve_workers(layout: Layout, n_shards: int, workers: int | str, address: str | None) -> int:
    """The worker count a run uses (joins the cluster first when ``auto`` needs its CPUs)."""
    if workers != "auto":
        return min(int(workers), n_shards)
    if address is not None:
        from distcfr.dist.runtime import connect

        connect(address)
    return auto_workers(layout, n_shards, address)


def make_shards(layout: Layout, n_shards: int, workers: int, address: str | None):
    """The ShardSet for a run on ``workers`` workers (0: in-process), and whether this process
    started Ray (and must stop it)."""
    from distcfr.dist.runtime import connect, ray_running, start_embedded

    if workers == 0:
        return LocalShards(layout, n_shards), False
    started = False
    if address is not None:
        connect(address)
    else:
        started = not ray_running()
        start_embedded(num_cpus=max(workers, os.cpu_count() or 1))
    from distcfr.dist.ray_shards import RayShards

    return RayShards(layout.game.spec, n_shards, workers), started


def make_sampled_shards(spec: str, n_shards: int, workers: int, address: str | None, seed: int, batch: int):
    """The sampled shard set of a run on ``workers`` workers, and whether this process started Ray."""
    from distcfr.engine.sampled_shards import LocalSampledShards

    if workers == 0:
        return LocalSampledShards(spec, n_shards, seed, batch), False
    from distcfr.dist.runtime import connect, ray_running, start_embedded

    started = False
    if address is not None:
        connect(address)
    else:
        started = not ray_running()
        start_embedded(num_cpus=max(workers, os.cpu_count() or 1))
    from distcfr.dist.ray_shards import RaySampledShards

    return RaySampledShards(spec, n_shards, workers, seed, batch), started

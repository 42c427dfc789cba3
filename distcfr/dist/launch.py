"""Choosing where the shards run: in this process, on an embedded Ray, or on a cluster."""

from __future__ import annotations

import os

from distcfr.solve.layout import Layout
from distcfr.solve.shard_set import LocalShards

# An iteration costs about 20 ns per (variant, node, deal) cell in-process, and on Ray about
# 25-90 ms more (two round trips, merge; bench/scaling.py) plus ~5 s to start the embedded Ray.
# Below ~10M cells (~200 ms a pass) that overhead eats what 2-4 local workers would save, so
# "auto" keeps such games in-process (Kuhn, Leduc, every draw27 up to 3 cards and a few stacks).
IN_PROCESS_CELLS = 10_000_000


def pass_cells(layout: Layout) -> int:
    return layout.n_variants * layout.tree.n_nodes * layout.n_deals


def auto_workers(layout: Layout, n_shards: int, address: str | None) -> int:
    """0 (in-process) for short passes without a cluster, else one worker per CPU (at most
    one per shard)."""
    if address is None and (pass_cells(layout) < IN_PROCESS_CELLS or n_shards == 1):
        return 0
    if address is None:
        cpus = os.cpu_count() or 1
    else:
        from distcfr.dist.runtime import cluster_cpus

        cpus = cluster_cpus()
    return max(1, min(cpus, n_shards))


def make_shards(layout: Layout, n_shards: int, workers: int | str, address: str | None):
    """The ShardSet for a run, and whether this process started Ray (and must stop it)."""
    from distcfr.dist.runtime import connect, ray_running, start_embedded

    if workers == "auto":
        if address is not None:
            connect(address)  # auto needs the cluster's CPU count
        workers = auto_workers(layout, n_shards, address)
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

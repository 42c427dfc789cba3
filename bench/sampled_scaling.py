"""Sampled 5-card draw27 on Ray: one vs two workers, bytes moved and memory per worker.

    python bench/sampled_scaling.py [--batch N] [--iterations 2]

Each worker owns the table rows of its hand classes and updates them itself; per half-iteration
only the updated player's current strategy moves: each worker puts its rows (float32) in the
object store, and the others read them in place."""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

NETWORK_BYTES_PER_S = 1.25e9  # a 10 Gb/s link between nodes (model only)


def peak_rss(pid: int) -> int:
    """Peak resident memory of a process in bytes (Linux: VmHWM)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="draw27(ranks=13,suits=4,hand=5,stacks=10)")
    parser.add_argument("--batch", type=int, help="deals per half-iteration (default: the solver's, 8 per class)")
    parser.add_argument("--shards", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--workers", default="0,1,2", help="worker counts to time, 0 for in-process (1 and 2 "
                        "are needed for the ratio and the model)")
    args = parser.parse_args()

    from distcfr.dist.launch import make_sampled_shards
    from distcfr.engine.memory import sampled_estimate
    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game(args.game)
    rows = []
    counts = [int(w) for w in args.workers.split(",")]
    for workers in counts:
        def factory(spec, n_shards, seed, batch, workers=workers):
            return make_sampled_shards(spec, n_shards, workers, None, seed, batch)[0]

        solver = SampledSolver(game, batch=args.batch, seed=1, shards=args.shards, shard_set=factory)
        solver.step()  # warm-up: actors build their lookup tables, first strategy broadcast
        start = time.perf_counter()
        for _ in range(args.iterations):
            solver.step()
        seconds = (time.perf_counter() - start) / args.iterations
        kernel = solver.kernel  # the strategy rows each half-iteration puts in the object store (float32):
        moved = [sum(kernel.n_classes * int(np.prod(b.shape)) * 4 for b in kernel.blocks if b.player == p)
                 for p in (0, 1)]
        memory = sampled_estimate(solver.kernel, solver.batch, args.shards, max(workers, 1))
        pids = solver.shards.pids() if workers else [os.getpid()]
        peak = max(peak_rss(pid) for pid in pids)
        rows.append((workers, seconds, 2 * solver.batch / seconds, moved, memory.per_worker, peak))
        solver.close()
    print(f"{args.game}, batch {solver.batch:,} deals per half-iteration, {args.shards} shards, "
          f"{os.cpu_count()} CPUs, numpy {np.__version__}")
    print("| workers | s / iteration | deals/s | strategy put per iteration (button + big blind half) "
          "| memory per worker: estimate | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- |")
    for workers, seconds, rate, moved, per_worker, peak in rows:
        print(f"| {workers or 'in-process'} | {seconds:.2f} | {rate:,.0f} "
              f"| {moved[0] / 1e6:.0f} + {moved[1] / 1e6:.0f} MB | {per_worker / 1e6:.0f} MB | {peak / 1e6:.0f} MB |")
    seconds = {row[0]: row[1] for row in rows}
    if {1, 2} <= set(seconds):
        print_ratio_and_model(seconds[1], seconds[2], next(row[3] for row in rows if row[0] == 2), solver.batch)
    from distcfr.dist.runtime import shutdown

    shutdown()


def print_ratio_and_model(one: float, two: float, moved: list[int], batch: int) -> None:
    print(f"2 workers vs 1: {one / two:.2f}x")
    # a model from these constants: t(W) = a / W + b (a: the work that splits, b: what does not), plus,
    # across nodes, each node fetching the other workers' strategy rows each half (assumed 10 Gb/s links)
    a, b = 2 * (one - two), max(2 * two - one, 0.0)
    moved = sum(moved)
    for workers in (16, 64):
        network = moved * (1 - 1 / workers) / NETWORK_BYTES_PER_S
        t = a / workers + b + network
        print(f"model, {workers} workers on {workers} nodes: {t:.2f} s per iteration, {2 * batch / t:,.0f} "
              f"deals/s, {one / t:.1f}x one worker (a = {a:.2f} s splits, b = {b:.2f} s does not, "
              f"{network:.2f} s of strategy transfers)")


if __name__ == "__main__":
    main()

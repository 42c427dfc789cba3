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
    args = parser.parse_args()

    from distcfr.dist.launch import make_sampled_shards
    from distcfr.engine.memory import sampled_estimate
    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game(args.game)
    rows = []
    for workers in (0, 1, 2):
        def factory(spec, n_shards, seed, batch, workers=workers):
            return make_sampled_shards(spec, n_shards, workers, None, seed, batch)[0]

        solver = SampledSolver(game, batch=args.batch, seed=1, shards=args.shards, shard_set=factory)
        solver.step()  # warm-up: actors build their lookup tables, first strategy broadcast
        start = time.perf_counter()
        for _ in range(args.iterations):
            solver.step()
        seconds = (time.perf_counter() - start) / args.iterations
        moved = [sum(a.nbytes for b, a in solver.current_strategy().items() if solver.kernel.block(b).player == p)
                 for p in (0, 1)]  # the strategy rows each half-iteration puts in the object store
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
    one, two = rows[1][1], rows[2][1]
    print(f"2 workers vs 1: {one / two:.2f}x")
    # a model from these constants: t(W) = a / W + b (a: the work that splits, b: what does not), plus,
    # across nodes, each node fetching the other workers' strategy rows each half (assumed 10 Gb/s links)
    a, b = 2 * (one - two), max(2 * two - one, 0.0)
    moved = sum(rows[2][3])
    for workers in (16, 64):
        network = moved * (1 - 1 / workers) / NETWORK_BYTES_PER_S
        t = a / workers + b + network
        print(f"model, {workers} workers on {workers} nodes: {t:.2f} s per iteration, {2 * solver.batch / t:,.0f} "
              f"deals/s, {one / t:.1f}x one worker (a = {a:.2f} s splits, b = {b:.2f} s does not, "
              f"{network:.2f} s of strategy transfers)")
    from distcfr.dist.runtime import shutdown

    shutdown()


if __name__ == "__main__":
    main()

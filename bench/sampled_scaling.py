"""Sampled 5-card draw27 on Ray: one vs two workers, bytes moved and memory per worker.

    python bench/sampled_scaling.py [--batch N] [--iterations 2]

Per half-iteration the coordinator puts the current strategy (float32, every class) in the object
store once, and each worker returns the tree sums of its shards' touched classes (float64)."""

from __future__ import annotations

import argparse
import os
import pickle
import time

import numpy as np


def peak_rss(pid: int) -> int:
    """Peak resident memory of a process in bytes (Linux: VmHWM)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="draw27(ranks=13,suits=4,hand=5,stacks=10)")
    parser.add_argument("--batch", type=int, help="deals per half-iteration (default: the solver's, 4 per class)")
    parser.add_argument("--shards", type=int, default=8)
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
        sigma_bytes = sum(a.nbytes for a in solver.sigma.values())
        sums = solver.shards.cfr_sums(solver.sigma, 0, solver.iteration + 1)
        returned = len(pickle.dumps(sums, protocol=5))  # what one worker holding every shard would send
        memory = sampled_estimate(solver.kernel, solver.batch, args.shards, max(workers, 1))
        pids = solver.shards.pids() if workers else [os.getpid()]
        peak = max(peak_rss(pid) for pid in pids)
        rows.append((workers, seconds, 2 * solver.batch / seconds, sigma_bytes, returned, memory.per_worker, peak))
        solver.close()
    print(f"{args.game}, batch {solver.batch:,} deals per half-iteration, {args.shards} shards, "
          f"{os.cpu_count()} CPUs, numpy {np.__version__}")
    print("| workers | s / iteration | deals/s | strategy out per half-iteration | sums back (all shards) "
          "| memory per worker: estimate | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for workers, seconds, rate, out, back, per_worker, peak in rows:
        print(f"| {workers or 'in-process'} | {seconds:.2f} | {rate:,.0f} | {out / 1e6:.0f} MB x workers "
              f"| {back / 1e6:.0f} MB | {per_worker / 1e6:.0f} MB | {peak / 1e6:.0f} MB |")
    one, two = rows[1][1], rows[2][1]
    print(f"2 workers vs 1: {one / two:.2f}x")
    from distcfr.dist.runtime import shutdown

    shutdown()


if __name__ == "__main__":
    main()

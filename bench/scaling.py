"""Ray scaling: iterations/s on 0 (in-process), 1 and 2 workers, bytes per iteration, and the
cost of a Ray round trip, on a game whose pass is long enough to be worth distributing.

    python bench/scaling.py [--game "draw27(ranks=7,suits=2,hand=2,stacks=1.5:10:0.5)"] \
        [--shards 4] [--iterations 20] [--workers 0,1,2]

Model printed at the end: an iteration (two half-iterations, alternating updates) costs
    T(n) ~= C / n + 2 * (R + M)
with C the compute of all shards (measured in-process), n the workers, R one Ray round trip
with the strategy going out and the deltas coming back, and M the coordinator's merge and
update. Bytes per iteration: 2 x (strategy table + n_shards x deltas).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import distcfr
from distcfr.dist.launch import make_shards
from distcfr.solve.layout import Layout


def timed_run(spec: str, shards: int, workers: int, iterations: int):
    layout = Layout(distcfr.load_game(spec))
    shard_set, _ = make_shards(layout, shards, workers, None)
    solver = distcfr.Solver(layout.game, algorithm="dcfr", shards=shards, shard_set=shard_set)
    solver.step()  # warm up (actors build their shards lazily on first touch)
    start = time.perf_counter()
    for _ in range(iterations):
        solver.step()
    per_iteration = (time.perf_counter() - start) / iterations
    result = solver.average_strategy().probs.tobytes()
    shard_set.close()
    return per_iteration, result, solver


def round_trip_ms() -> float:
    import ray

    @ray.remote(num_cpus=0)
    class Echo:
        def echo(self, x):
            return x

    echo = Echo.remote()
    ray.get(echo.echo.remote(0))
    start = time.perf_counter()
    for i in range(200):
        ray.get(echo.echo.remote(i))
    ray.kill(echo)
    return (time.perf_counter() - start) / 200 * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="draw27(ranks=7,suits=2,hand=2,stacks=1.5:10:0.5)")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--workers", default="0,1,2")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]

    rows, results = [], {}
    for n in workers:
        seconds, result, solver = timed_run(args.game, args.shards, n, args.iterations)
        results[n] = result
        rows.append((n, seconds))
    layout = solver.layout
    table = layout.n_variants * layout.n_infosets * layout.max_actions * 8
    deltas_per_shard = sum(layout.n_variants * (rows_.stop - rows_.start) * (layout.max_actions + 1) * 8
                           for rows_ in layout.player_rows)  # both halves together
    bytes_per_iteration = 2 * table + args.shards * deltas_per_shard
    rtt = round_trip_ms() if any(n > 0 for n in workers) else float("nan")

    base = dict(rows)
    print(f"{args.game}, {args.shards} shards, {layout.n_deals:,} deals, {layout.tree.n_nodes} nodes, "
          f"{layout.n_variants} variants; dcfr, alternating; {os.cpu_count()} CPUs\n")
    print("| workers | ms / iteration | iterations / s | speed-up vs 1 worker | bitwise = in-process |")
    print("| --- | --- | --- | --- | --- |")
    for n, seconds in rows:
        speed = base.get(1, seconds) / seconds
        same = "yes" if results[n] == results[workers[0]] else "NO"
        print(f"| {n} | {seconds * 1e3:.1f} | {1 / seconds:.2f} | {speed:.2f} | {same} |")
    print(f"\nbytes per iteration: {bytes_per_iteration:,} (strategy table {table:,} B out twice, "
          f"deltas {deltas_per_shard:,} B per shard back)")
    print(f"trivial Ray actor round trip: {rtt:.2f} ms")
    if 0 in base and 1 in base:
        overhead = base[1] - base[0]
        print(f"Ray overhead per iteration (1 worker - in-process): {overhead * 1e3:.1f} ms")
        compute = base[0]
        print(f"model: T(n) ~= {compute * 1e3:.1f} ms / n + {max(overhead, 0) * 1e3:.1f} ms  "
              f"(predicts {compute / 2 * 1e3 + max(overhead, 0) * 1e3:.1f} ms on 2 workers)")
    for n in workers:
        assert results[n] == results[workers[0]], "results differ across worker counts"
    np.testing.assert_equal(len(set(results.values())), 1)


if __name__ == "__main__":
    main()

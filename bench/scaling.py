"""Ray scaling: iterations/s on 0 (in-process), 1 and 2 workers, bytes per iteration, and the
cost of a Ray round trip, on a game whose pass is long enough to be worth distributing.

    python bench/scaling.py [--game SPEC ...] [--shards 4] [--seconds 3] [--workers 0,1,2]

By default two games: draw27 with 7 ranks, 2 suits, 2 cards over 18 stacks (~55 ms a pass
here) and with 6 ranks, 2 suits, 3 cards over 18 stacks (~750 ms a pass).

Model printed at the end: an iteration (two half-iterations, alternating updates) costs
    T(n) ~= C / n + O
with C the compute of all shards in worker processes, n the workers and O the overhead of
two Ray round trips (the strategy table out, the partial sums back) plus the coordinator's
merge and update; C and O are fitted to the 1- and 2-worker runs. Bytes per iteration:
2 x (strategy table out per worker + one partial sum back per shard subtree a worker
holds: 1 per worker when shards divide evenly).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import distcfr
from distcfr.engine.shard_set import subtree_sums


def timed_run(spec: str, shards: int, workers: int, iterations: int):
    solver = distcfr.open_solver(spec, sampling=False, workers=workers, algorithm="dcfr", shards=shards)
    solver.step()  # warm up (actors build their shards lazily on first touch)
    start = time.perf_counter()
    for _ in range(iterations):
        solver.step()
    per_iteration = (time.perf_counter() - start) / iterations
    result = solver.average_strategy().probs.tobytes()
    solver.shards.close()  # the embedded Ray stays up for the next run
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
    parser.add_argument("--game", nargs="+", default=["draw27(ranks=7,suits=2,hand=2,stacks=1.5:10:0.5)",
                                                      "draw27(ranks=6,suits=2,hand=3,stacks=1.5:10:0.5)"])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per worker count (about)")
    parser.add_argument("--workers", default="0,1,2")
    args = parser.parse_args()
    for game in args.game:
        report(game, args.shards, [int(w) for w in args.workers.split(",")], args.seconds)
        print()


def report(game: str, shards: int, workers: list[int], seconds_wanted: float) -> None:
    probe, _, _ = timed_run(game, shards, 0, 1)
    iterations = max(3, int(seconds_wanted / probe))

    rows, results = [], {}
    for n in workers:
        seconds, result, solver = timed_run(game, shards, n, iterations)
        results[n] = result
        rows.append((n, seconds))
    layout = solver.layout
    table = layout.n_variants * layout.n_infosets * layout.max_actions * 8
    deltas = sum(layout.n_variants * (rows_.stop - rows_.start) * (layout.max_actions + 1) * 8
                 for rows_ in layout.player_rows)  # one partial sum, both halves together

    def bytes_per_iteration(n: int) -> int:
        if n == 0:
            return 0
        blocks = [(w * shards // n, (w + 1) * shards // n) for w in range(n)]
        partials = sum(len(subtree_sums(dict.fromkeys(range(a, b)), 0, shards, a, b)) for a, b in blocks)
        return 2 * table * n + partials * deltas

    rtt = round_trip_ms() if any(n > 0 for n in workers) else float("nan")

    base = dict(rows)
    print(f"{game}, {shards} shards, {layout.n_deals:,} deals, {layout.tree.n_nodes} nodes, "
          f"{layout.n_variants} variants; dcfr, alternating; {iterations} iterations; "
          f"{os.cpu_count()} CPUs\n")
    print("| workers | ms / iteration | iterations / s | speed-up vs 1 worker | bytes / iteration "
          "| bitwise = in-process |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n, seconds in rows:
        speed = base.get(1, seconds) / seconds
        same = "yes" if results[n] == results[workers[0]] else "NO"
        print(f"| {n} | {seconds * 1e3:.1f} | {1 / seconds:.2f} | {speed:.2f} | {bytes_per_iteration(n):,} | {same} |")
    print(f"\nstrategy table {table:,} B (out to each worker, twice per iteration); one partial sum "
          f"{deltas:,} B per iteration (both halves)")
    print(f"trivial Ray actor round trip: {rtt:.2f} ms")
    if 1 in base and 2 in base:
        compute = 2 * (base[1] - base[2])  # fit T(n) = C / n + O to the 1- and 2-worker runs
        overhead = 2 * base[2] - base[1]
        print(f"fit: T(n) ~= {compute * 1e3:.1f} ms / n + {overhead * 1e3:.1f} ms per iteration "
              f"(in-process: {base.get(0, float('nan')) * 1e3:.1f} ms)")
        print(f"on a network add bytes/bandwidth: {bytes_per_iteration(2) / 1e6:.1f} MB per iteration on 2 "
              f"workers is {bytes_per_iteration(2) * 8 / 1e9 * 1e3:.1f} ms at 1 Gbit/s")
    for n in workers:
        assert results[n] == results[workers[0]], "results differ across worker counts"
    np.testing.assert_equal(len(set(results.values())), 1)


if __name__ == "__main__":
    main()

"""Sampled draw27 kernel throughput on one core: the 52-card, 5-card game, one stack versus 39 stacks.

    python bench/sampled_draw27.py [--deals 200000] [--batch 4096] [--batch-many 256]

Per configuration: deals per second of ``sample_deals`` alone, of ``cfr_values`` for both players
alone, and of both together, in CPU time of this one process (a busy machine slows wall clock, and
rounds vary: the median of several rounds is shown, the best beside it), after a warm-up (first
touches of memory are very slow on some VMs); then where the time goes (cProfile, by phase).
Targets: >= 100,000 deals/s for one stack; 39 stacks (1:20:0.5) at most 8x one stack per deal (goal 4x).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: BLAS must not spread the batched matmuls

import argparse  # noqa: E402
import cProfile  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from distcfr.games.draw27_sampled import SampledDraw27  # noqa: E402

PHASES = {  # kernel function -> phase of the breakdown (cumulative times; these never call one another)
    "sample_deals": "sampling", "_columns": "classification", "_showdown": "rank lookups + W",
    "_chunk_values": "sigma gathers + products", "_block_values": "sigma gathers + products",
    "add": "class sums (sort + scatter)", "__init__": "class sums (sort + scatter)",
    "result": "class sums (sort + scatter)",
}


def measure(game: SampledDraw27, deals: int, batch: int, rounds: int) -> dict:
    """CPU seconds per deal of this process (one core) sampling and in cfr_values, per round of
    ``deals / rounds`` deals in batches, after a warm-up; and the cProfile phase shares."""
    sigma = game.uniform(np.float32)
    for i in range(3):
        game.cfr_values(sigma, game.sample_deals(1, 1, i, batch))
    per_round = max(1, deals // batch // rounds)
    results = []
    for r in range(rounds):
        sample = values = 0.0
        wall = time.perf_counter()
        for i in range(per_round):
            start = time.process_time()
            d = game.sample_deals(1, 0, r * per_round + i, batch)
            mid = time.process_time()
            game.cfr_values(sigma, d)
            sample, values = sample + mid - start, values + time.process_time() - mid
        n = per_round * batch
        results.append((sample / n, values / n, (time.perf_counter() - wall) / n))
    results.sort(key=lambda x: x[0] + x[1])
    profile = cProfile.Profile()
    profile.enable()
    for i in range(per_round):
        game.cfr_values(sigma, game.sample_deals(1, 2, i, batch))
    profile.disable()
    phases: dict[str, float] = {}
    stats = pstats.Stats(profile).stats
    for (path, _, name), row in stats.items():
        if name in PHASES and path.endswith("draw27_sampled.py"):
            phases[PHASES[name]] = phases.get(PHASES[name], 0.0) + row[3]  # cumulative time
    total = sum(row[2] for row in stats.values())  # all tottimes: the whole profiled time
    phases["rest (Python glue)"] = total - sum(phases.values())
    return {"n": rounds * per_round * batch, "best": results[0], "median": results[len(results) // 2],
            "phases": {k: v / total for k, v in phases.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200_000, help="deals timed for one stack (39 stacks: 1/8)")
    parser.add_argument("--batch", type=int, default=4096, help="deals per cfr_values call, one stack")
    parser.add_argument("--batch-many", type=int, default=256, help="deals per cfr_values call, 39 stacks")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; the median and best are shown")
    args = parser.parse_args()
    configs = [("1 stack (10 BB)", (10.0,), args.deals, args.batch),
               ("39 stacks (1:20:0.5)", tuple(np.arange(1, 20.001, 0.5)), args.deals // 8, args.batch_many)]
    rows = []
    for label, stacks, deals, batch in configs:
        game = SampledDraw27(13, 4, 5, stacks)
        rows.append((label, batch, measure(game, deals, batch, args.rounds)))
    print(f"52 cards, 5 each, cfr_values for both players; one core (OPENBLAS_NUM_THREADS=1); CPU time of the "
          f"median of {args.rounds} rounds (best round in brackets)\n")
    print("| stacks | batch | deals | sampling deals/s | cfr_values deals/s | together deals/s | us/deal "
          "| sampling share | together, wall clock |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, batch, m in rows:
        (sample, values, wall), best = m["median"], sum(m["best"][:2])
        print(f"| {label} | {batch} | {m['n']:,} | {1 / sample:,.0f} | {1 / values:,.0f} | "
              f"{1 / (sample + values):,.0f} ({1 / best:,.0f}) | {(sample + values) * 1e6:.2f} | "
              f"{sample / (sample + values):.1%} | {1 / wall:,.0f} |")
    one, many = (sum(m["median"][:2]) for _, _, m in rows)
    best_ratio = sum(rows[1][2]["best"][:2]) / sum(rows[0][2]["best"][:2])
    print(f"\n39 stacks cost {many / one:.2f}x one stack per deal ({best_ratio:.2f}x best rounds; "
          "target <= 8x, goal 4x)\n")
    print("| phase (cProfile, cumulative) | " + " | ".join(label for label, _, _ in rows) + " |")
    print("| --- |" + " --- |" * len(rows))
    for phase in dict.fromkeys(p for _, _, m in rows for p in m["phases"]):
        print(f"| {phase} | " + " | ".join(f"{m['phases'].get(phase, 0.0):.1%}" for _, _, m in rows) + " |")


if __name__ == "__main__":
    main()

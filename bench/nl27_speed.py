"""nl27's exact solver beside draw27's on the write-up's deck (13 ranks, one suit, one card): iterations
per second and the time to a target exploitability, at one stack and at a list of 38, and where the
time goes (the range-form pass against the coordinator's table update).

    OPENBLAS_NUM_THREADS=1 python bench/nl27_speed.py                 # 1e-5 BB, up to 40 minutes a game
    OPENBLAS_NUM_THREADS=1 python bench/nl27_speed.py --quick         # 1e-3 BB, a minute or two

Solving time excludes the exploitability checks (every --every iterations). Prints one row per game
and the ratios nl27 / draw27 measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import time

import distcfr

GAMES = (("draw27", "draw27(stacks=10)"), ("nl27", "nl27(stacks=10)"),
         ("draw27", "draw27(stacks=1.5:20:0.5)"), ("nl27", "nl27(stacks=1.5:20:0.5)"))


class Timed:
    """A shard set whose cfr_sums calls are timed (the range-form or deal-form pass)."""

    def __init__(self, inner):
        self.inner, self.seconds = inner, 0.0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def cfr_sums(self, *args):
        start = time.perf_counter()
        try:
            return self.inner.cfr_sums(*args)
        finally:
            self.seconds += time.perf_counter() - start


def measure(spec: str, target: float, budget: float, every: int) -> dict:
    game = distcfr.load_game(spec)
    solver = distcfr.Solver(game)
    solver.shards = timed = Timed(solver.shards)
    solving, expl, reached = 0.0, float("inf"), None
    while solving < budget:
        start = time.perf_counter()
        for _ in range(every):
            solver.step()
        solving += time.perf_counter() - start
        expl = solver.average_strategy().exploitability()
        if expl <= target:
            reached = solving
            break
    return {"game": spec, "rule": solver.rule.name, "iterations": solver.iteration, "seconds": solving,
            "iterations_per_second": solver.iteration / solving, "exploitability": expl,
            "seconds_to_target": reached, "pass_share": timed.seconds / solving,
            "infosets": solver.layout.n_infosets, "nodes": game.tree.n_nodes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=float, default=1e-5, help="exploitability to reach, BB per hand")
    parser.add_argument("--budget", type=float, default=2400, help="solving seconds per game at most")
    parser.add_argument("--every", type=int, default=50, help="iterations between exploitability checks")
    parser.add_argument("--quick", action="store_true", help="target 1e-3, budget 120 s")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    target, budget = (1e-3, 120.0) if args.quick else (args.target, args.budget)
    rows = []
    print(f"{'game':34} {'rule':6} {'it/s':>8} {'iterations':>10} {'s to target':>12} {'pass share':>10} "
          f"{'exploitability':>14}")
    for _, spec in GAMES:
        row = measure(spec, target, budget, args.every)
        rows.append(row)
        reached = f"{row['seconds_to_target']:.1f}" if row["seconds_to_target"] is not None else "not reached"
        print(f"{spec:34} {row['rule']:6} {row['iterations_per_second']:8.1f} {row['iterations']:10,} {reached:>12} "
              f"{row['pass_share']:10.0%} {row['exploitability']:14.2e}", flush=True)
    for one, other in ((0, 1), (2, 3)):
        a, b = rows[one], rows[other]
        ratio = (f"{b['seconds_to_target'] / a['seconds_to_target']:.1f}x"
                 if a["seconds_to_target"] and b["seconds_to_target"] else "n/a")
        print(f"{b['game']} / {a['game']}: {a['iterations_per_second'] / b['iterations_per_second']:.1f}x the time "
              f"per iteration, {ratio} the time to {target:g} BB")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"target": target, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()

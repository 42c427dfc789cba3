"""Sampled draw27 held to the exact solver where it reaches: the calibration curve (exact
exploitability of the sampled average strategy against visits per hand class) and the coverage of
the exploitability bracket and of the value's error bars over seeds.

    python bench/sampled_calibration.py [--seeds 10] [--visits 10,100,1000,10000]

Per configuration and seed, one linear-CFR solve is continued through the visit levels (sampled
deals that updated a class, per player: every class gets the same number); at each level the exact
exploitability and value of the average strategy, and at the last two levels the bracket
(default deals per class) with its 95% interval."""

from __future__ import annotations

import argparse
import time

import numpy as np

from distcfr.engine.kernels import sampled_kernel

CONFIGS = ("draw27(ranks=13,suits=1,hand=1,stacks=3)", "draw27(ranks=8,suits=1,hand=2,stacks=3)",
           "draw27(ranks=8,suits=2,hand=3,stacks=10)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", default=";".join(CONFIGS), help="game specs separated by ';'")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--visits", default="10,100,1000,10000", help="visit levels per hand class")
    args = parser.parse_args()

    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver
    from distcfr.solve.solver import Solver

    levels = [int(v) for v in args.visits.split(",")]
    for spec in args.configs.split(";"):
        game = load_game(spec)
        exact = Solver(game).solve(target_exploitability=1e-7, iterations=50_000)
        exact_value = exact.value_per_variant[0]
        stack = float(sampled_kernel(game).stacks[0])
        rows, covered, value_covered, brackets = [], 0, 0, 0
        started = time.perf_counter()
        for seed in range(args.seeds):
            classes = sampled_kernel(game).n_classes  # a batch of 2 deals per class reaches the low visit levels
            solver = SampledSolver(game, seed=seed, shards=1, batch=2 * classes)
            for i, visits in enumerate(levels):
                iterations = max(1, round(visits * classes / solver.batch))
                strategy = solver.solve(iterations)
                exact_strategy = strategy.to_exact()
                expl = float(exact_strategy.exploitability_per_variant()[0])
                value = float(exact_strategy.value_per_variant[0])
                real_visits = float(np.median(solver.visits(0)))
                row = {"seed": seed, "visits": real_visits, "exploitability": expl, "value": value}
                if i >= len(levels) - 2:
                    b = strategy.bracket(seed=10_000 + seed)
                    low = max(float(b.low[0] - 1.96 * b.low_se[0]), 0.0)
                    high = float(b.high[0] + 1.96 * b.high_se[0])
                    row |= {"bracket": (low, high), "per_class": b.per_class}
                    brackets += 1
                    covered += low <= expl <= high
                    value_covered += abs(float(b.value[0]) - value) <= 1.96 * float(b.value_se[0])
                rows.append(row)
        print(f"\n{spec}: exact value {exact_value:+.6f}, {args.seeds} seeds, batch {solver.batch:,} deals, "
              f"{solver.kernel.n_classes} classes, {time.perf_counter() - started:.0f} s")
        print("| visits per class (median) | exact exploitability: median | min | max "
              "| exploitability x visits / stack | |value - exact value|: median |")
        print("| --- | --- | --- | --- | --- | --- |")
        for visits in levels:
            at = [r for r in rows if abs(np.log(r["visits"] / visits)) < 0.7]
            e = np.array([r["exploitability"] for r in at])
            gap = np.median([abs(r["value"] - exact_value) for r in at])
            v = np.median([r["visits"] for r in at])
            print(f"| {v:,.0f} | {np.median(e):.5f} | {e.min():.5f} | {e.max():.5f} | {np.median(e) * v / stack:.2f} "
                  f"| {gap:.5f} |")
        print(f"bracket (95%) contains the exact exploitability: {covered} of {brackets} "
              f"(deals per class {rows[-1]['per_class']}); sampled value within 1.96 SE of the profile's exact "
              f"value: {value_covered} of {brackets}")
        last = [r for r in rows if "bracket" in r][-2:]
        for r in last:
            print(f"  e.g. seed {r['seed']}, {r['visits']:,.0f} visits: exact {r['exploitability']:.5f} in "
                  f"[{r['bracket'][0]:.5f}, {r['bracket'][1]:.5f}]")


if __name__ == "__main__":
    main()

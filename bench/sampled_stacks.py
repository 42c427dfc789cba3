"""The sampled 5-card game over a stack list: cost per sampled deal of 39 stacks against one, in one run.

    OPENBLAS_NUM_THREADS=1 python bench/sampled_stacks.py [--classes 2000] [--per-class 8]

Times what a shard does per half-iteration (draw its deals by hand class, then the class sums of
the updated player: ``SampledDraw27.class_sums``) for both players, on one core, at a realistic
current strategy (regret matching on random regrets). The stacks share the deals, the hand
classes, the rank lookups and the showdown signs; only the strategy rows and products differ
(target: 39 stacks at most 8x one stack per deal, goal 4x)."""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def per_deal(kernel, n_classes: int, per_class: int, repeats: int) -> tuple[float, float]:
    """(seconds per deal sampling, seconds per deal in class_sums), both halves, best of ``repeats``."""
    from distcfr.engine.rules import regret_matching

    rng = np.random.default_rng(0)
    sigma = {b.name: regret_matching(rng.standard_normal((kernel.n_classes, *b.shape), dtype=np.float32))
             for b in kernel.strategy_tables}
    counts = np.full(n_classes, per_class)
    first = kernel.n_classes // 3  # classes from the middle of the order: ordinary hands
    best = [np.inf, np.inf]
    for r in range(repeats):
        spent = [0.0, 0.0]
        for player in (0, 1):
            start = time.perf_counter()
            deals = kernel.sample_class_deals(1, (9, r, player), player, first, counts)
            middle = time.perf_counter()
            kernel.class_sums(sigma, deals, player, counts)
            spent[0] += middle - start
            spent[1] += time.perf_counter() - middle
        best = [min(b, s / (2 * len(deals))) for b, s in zip(best, spent)]
    return best[0], best[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--classes", type=int, default=2000, help="hand classes per timed call")
    parser.add_argument("--per-class", type=int, default=8, help="deals per class (the solver's default)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from distcfr.engine.sampled_draw27 import SampledDraw27

    lists = {"1 stack (10 BB)": (10.0,), "20 stacks (1:20:1)": tuple(np.arange(1, 20.5, 1.0)),
             "39 stacks (1:20:0.5)": tuple(np.arange(1, 20.25, 0.5))}
    print(f"5 cards from 52, {args.classes} classes x {args.per_class} deals per timed call, both halves, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, numpy {np.__version__}")
    print("| stacks | sampling us/deal | class sums us/deal | total us/deal | deals/s | ratio to one stack |")
    print("| --- | --- | --- | --- | --- | --- |")
    one = None
    for label, stacks in lists.items():
        kernel = SampledDraw27(13, 4, 5, stacks)
        sample, sums = per_deal(kernel, args.classes, args.per_class, args.repeats)
        total = sample + sums
        one = one or total
        print(f"| {label} | {sample * 1e6:.2f} | {sums * 1e6:.2f} | {total * 1e6:.2f} | {1 / total:,.0f} "
              f"| {total / one:.2f} |", flush=True)


if __name__ == "__main__":
    main()

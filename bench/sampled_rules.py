"""Update rules under chance sampling, measured: exact exploitability of the average strategy after
the same number of sampled deals, per rule and batch size, on a game the exact solver reaches.

    python bench/sampled_rules.py [--game "draw27(ranks=8,suits=2,hand=3,stacks=10)"] [--deals 1e7]

lcfr and cfr are the solver's own (``SampledSolver``); cfr+ (regrets floored at zero, linear
averaging) and dcfr(1.5, 0, 2) are the rule registry's, applied to the rows each batch touches as
distcfr.engine.rules.update_sampled_rows does for a rule without a weighted form, to show why the
solver refuses them."""

from __future__ import annotations

import argparse
import time

import numpy as np


def make_solver(game, rule: str, batch: int, seed: int):
    from distcfr.engine.rules import make_rule
    from distcfr.solve.sampled_solver import SampledSolver

    solver = SampledSolver(game, "lcfr", batch=batch, seed=seed, shards=1, table_dtype=np.float64)
    solver.rule = make_rule(rule)  # past SampledSolver's refusal: the registry's rows update applies any rule
    return solver


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="draw27(ranks=8,suits=2,hand=3,stacks=10)")
    parser.add_argument("--deals", type=float, default=1e7)
    parser.add_argument("--batches", default="100,1000,10000", help="batch sizes tried with lcfr")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from distcfr.games.registry import load_game

    game = load_game(args.game)
    runs = [("lcfr", int(b)) for b in args.batches.split(",")] + [(r, 1000) for r in ("cfr", "dcfr", "cfr+")]
    print(f"{args.game}: exact exploitability (BB per hand) of the average strategy after {args.deals:,.0f} "
          f"sampled deals, seed {args.seed}")
    print("| rule | batch | exploitability | seconds |")
    print("| --- | --- | --- | --- |")
    for rule, batch in runs:
        start = time.perf_counter()
        solver = make_solver(game, rule, batch, args.seed)
        strategy = solver.solve(max(1, round(args.deals / (2 * batch))))
        expl = float(strategy.to_exact().exploitability_per_variant().max())
        print(f"| {rule} | {batch:,} | {expl:.5f} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()

"""The machine-dependent estimates of distcfr/engine/calibration.py, measured on this machine.

    python bench/calibration.py [--game SPEC] [--iterations 20] [--per-class 200]

Solves a sampled game in this process and times: its training deals per second
(SAMPLED_DEALS_PER_SECOND), a bracket's seconds per drawn deal against a training deal's, without
refinement or focus rounds (BRACKET_DEAL_COST), what each refinement round and the focus round add to it
(BRACKET_ROUND_COST: a bracket of r rounds and f focus rounds takes 1 + BRACKET_ROUND_COST (r + f)
times one of neither), and, on a deck the exact solver reaches, the exact exploitability of the average
strategy against the estimate EQUITY_PAIRS_PER_SECOND and SECONDS_PER_DEAL_AND_STACK give (the ratio
scales both). Prints each beside the value the library uses. The Ray round trip and the exact pass's
bytes per second (RAY_WORTH_SECONDS, EXACT_PASS_BYTES_PER_SECOND) are bench/scaling.py's.
"""

from __future__ import annotations

import argparse
import time

from distcfr.engine import calibration
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS, drawn_deals
from distcfr.evaluate.class_strategy import exact_seconds
from distcfr.games.registry import load_game
from distcfr.solve.sampled_solver import SampledSolver


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="draw27(ranks=8,suits=2,hand=3,stacks=10)")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--per-class", type=int, default=200, help="the bracket's deals per hand class")
    args = parser.parse_args()
    game = load_game(args.game)
    with SampledSolver(game) as solver:
        solver.step()  # compiles the kernel's loops
        began, first = time.perf_counter(), solver.deals_done
        for _ in range(args.iterations):
            solver.step()
        per_deal = (time.perf_counter() - began) / (solver.deals_done - first)
        took = {}
        for rounds, focus in ((0, 0), (1, 0), (2, 0), (0, FOCUS_SHARE), (REFINE_ROUNDS, FOCUS_SHARE)):
            began = time.perf_counter()
            solver.bracket(args.per_class, rounds=rounds, focus=focus)
            took[rounds, focus] = time.perf_counter() - began
        bracket = took[REFINE_ROUNDS, FOCUS_SHARE]
        strategy = solver.average_strategy()
    drawn = drawn_deals(args.per_class, solver.kernel.n_classes)
    print(f"{args.game}: one process")
    print(f"SAMPLED_DEALS_PER_SECOND  measured {1 / per_deal:,.0f}  used {calibration.SAMPLED_DEALS_PER_SECOND:,}")
    plain = took[0, 0]
    print(f"BRACKET_DEAL_COST         measured {plain / drawn / per_deal:.2f}  used "
          f"{calibration.BRACKET_DEAL_COST} ({drawn:,} drawn deals in {plain:.2f} s; with the default rounds "
          f"{bracket:.1f} s, {bracket / drawn / per_deal:.1f} training deals a drawn deal)")
    steps = {f"{r} round(s)": (took[r, 0] / plain - 1) / r for r in (1, 2)}
    steps["focus round"] = took[0, FOCUS_SHARE] / plain - 1
    steps["both (default)"] = (bracket / plain - 1) / (REFINE_ROUNDS + 1)
    print(f"BRACKET_ROUND_COST        measured {steps['both (default)']:.2f}  used {calibration.BRACKET_ROUND_COST} "
          f"(each round adds, per round: "
          + ", ".join(f"{name} {cost:.2f}" for name, cost in steps.items()) + ")")
    estimate = exact_seconds(game)
    if estimate is not None:
        began = time.perf_counter()
        strategy.as_stored().exact_exploitability()
        took = time.perf_counter() - began
        print(f"exact exploitability      measured {took:.1f} s, estimated {estimate:.1f} s: scale "
              f"EQUITY_PAIRS_PER_SECOND and 1 / SECONDS_PER_DEAL_AND_STACK by {estimate / took:.2f}")


if __name__ == "__main__":
    main()

"""The end of an exact run: its summary from the average strategy, the break-even stacks of a list of
stacks refined by bisection on single-stack solves where asked, the evaluation kept in the strategy."""

from __future__ import annotations

from collections.abc import Callable

from distcfr.evaluate.break_even import refine_crossings
from distcfr.evaluate.summary import exact_summary
from distcfr.solve.solver import Solver


def finish_exact(game, solver, result, refine_break_even: float | None, say: Callable[[str], None]) -> tuple:
    """(summary, average strategy) of an exact run that ended with ``result`` (its RunResult); with
    ``refine_break_even`` (BB), each break-even stack refined to within it (``say``s so first) unless the
    run was interrupted. The strategy's meta keeps the summary's evaluation per variant."""
    strategy = solver.average_strategy()
    summary = exact_summary(game, solver, strategy, result.wall_seconds, result.iterations_run)
    if refine_break_even and not result.interrupted:
        say(f"  refining the break-even stacks to {refine_break_even:g} BB (single-stack solves)")
        summary["break_even_interpolated"] = summary["break_even"]
        summary["break_even"] = refine_crossings(game.variant_values, summary["break_even"],
                                                 single_stack_value(game, solver), refine_break_even)
    strategy.meta["evaluation"] = summary["per_variant"]
    return summary, strategy


def single_stack_value(game, solver) -> Callable[[float], float]:
    """value_at(stack): the game solved exactly at one stack with the run's rule (to 1e-7 BB, far
    below the value differences bisected)."""

    def value_at(stack: float) -> float:
        with Solver(game.with_variant_values([stack]), algorithm=solver.rule) as single:
            return single.solve(target_exploitability=1e-7, iterations=100_000).value()

    return value_at

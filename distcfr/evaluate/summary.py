"""The summary of a run as plain data (what ``--summary-json`` writes and the command line prints):
the exact evaluation of an exact solve's average strategy, or a sampled solve's bracket."""

from __future__ import annotations

import numpy as np

from distcfr.engine.sampled_bracket import drawn_deals
from distcfr.evaluate.break_even import crossing_interval, crossings


def exact_summary(game, solver, strategy, wall: float, iterations_run: int) -> dict:
    br = strategy.best_response_per_variant  # (2, B)
    expl = strategy.exploitability_per_variant()
    values = strategy.value_per_variant
    per_variant = [{"variant": label, "value": float(values[i]), "exploitability": float(expl[i]),
                    "best_response": [float(br[0, i]), float(br[1, i])]}
                   for i, label in enumerate(game.variant_labels)]
    summary = {
        "game": game.spec,
        "unit": game.unit, "value_of": game.seats[0],
        "algorithm": solver.rule.name,
        "rule": solver.rule.fields(),
        "updates": solver.updates,
        "iterations": solver.iteration,
        "wall_seconds": wall,
        "iterations_per_second": iterations_run / wall if wall > 0 else None,
        "exploitability": float(expl.max()),
        "value": float(values[0]) if len(values) == 1 else [float(v) for v in values],
        "best_response": [float(br[0, 0]), float(br[1, 0])] if len(values) == 1 else None,
        "per_variant": per_variant,
    }
    if game.variant_values is not None and len(game.variant_values) > 1:
        summary["per_stack"] = [{"stack": s, "value": float(values[i]), "exploitability": float(expl[i])}
                                for i, s in enumerate(game.variant_values)]
        summary["break_even"] = crossings(game.variant_values, values)
    return summary


def _sampled_run_fields(game, solver, wall: float, iterations_run: int, deals_run: int) -> dict:
    """What every sampled summary says of its run: the game, the rule, the deal stream and the speed."""
    return {
        "game": game.spec, "mode": "sampled", "unit": game.unit, "value_of": game.seats[0],
        "algorithm": solver.rule.name, "rule": solver.rule.fields(),
        "seed": solver.seed, "batch": solver.batch, "deal_shares": list(solver.deal_shares),
        "iterations": solver.iteration, "deals": solver.deals_done,
        "wall_seconds": wall, "deals_per_second": deals_run / wall if wall > 0 else None,
        "iterations_per_second": iterations_run / wall if wall > 0 else None,
    }


def sampled_summary(game, solver, bracket, wall: float, iterations_run: int, deals_run: int) -> dict:
    """The summary of a sampled run. ``exploitability`` is the bracket's upper estimate (the
    honest side); ``exploitability_ci`` spans the larger lower estimate and the upper one, widened by
    their standard errors (:meth:`~distcfr.evaluate.sampled.Bracket.interval`); per stack,
    ``latest_iterate_estimate`` is the latest iterate's gain as a response, with its standard error."""
    low, high = bracket.interval()
    visits = np.minimum(solver.visits(0), solver.visits(1))
    per_variant = [{"variant": label, "value": float(bracket.value[i]), "value_se": float(bracket.value_se[i]),
                    "exploitability": float(bracket.high[i]),
                    "exploitability_ci": [float(low[i]), float(high[i])],
                    "exploitability_estimates": [float(bracket.low[i]), float(bracket.high[i])],
                    "latest_iterate_estimate": None if bracket.latest_low is None else
                    [float(bracket.latest_low[i]), float(bracket.latest_low_se[i])]}
                   for i, label in enumerate(game.variant_labels)]
    return {
        **_sampled_run_fields(game, solver, wall, iterations_run, deals_run),
        "exploitability": float(bracket.high.max()),
        "exploitability_meaning": "upper estimate of the sampled bracket, BB per hand",
        "exploitability_ci": [float(low.max()), float(high.max())],
        "value": float(bracket.value[0]) if len(bracket.value) == 1 else [float(v) for v in bracket.value],
        "value_se": float(bracket.value_se.max()),
        "visits_per_class": {"min": int(visits.min()), "median": float(np.median(visits)),
                             "meaning": "sampled deals that updated a hand class, per player",
                             "bracket_per_class": bracket.per_class},
        "per_variant": per_variant,
        **_break_even(game, bracket),
    }


def add_exact(summary: dict, exact, seconds: float) -> None:
    """Put the exact exploitability per stack (B,) beside a sampled summary's bracket: in each stack's
    row (``exploitability_exact``), its largest, the evaluation's seconds and whether every stack's
    interval contains its exact figure."""
    for row, x in zip(summary["per_variant"], exact):
        row["exploitability_exact"] = float(x)
    summary["exploitability_exact"] = {
        "largest": float(max(exact)), "seconds": seconds,
        "inside_interval": all(inside_interval(row) for row in summary["per_variant"]),
        "meaning": "every deal enumerated, the strategy as its file stores it (float16), BB per hand"}


def inside_interval(row: dict) -> bool:
    """Whether a stack's bracket interval (``exploitability_ci``) contains its exact exploitability
    (an exact figure a hair below 0, rounding, counts as 0: no strategy is exploitable by less)."""
    lo, hi = row["exploitability_ci"]
    return lo <= max(row["exploitability_exact"], 0.0) <= hi


def settling(readings: list[dict], stacks, per_class: int, deals: int) -> dict | None:
    """How far the button's value per stack, and the break-even stacks of a list, moved over the
    run's second half: from the value reading nearest its middle (in time) to the last, all on the
    same deals; None with fewer than three readings."""
    if len(readings) < 3:
        return None
    last = readings[-1]
    middle = min(readings[:-1], key=lambda r: abs(r["seconds"] - last["seconds"] / 2))
    moves = np.subtract(last["value"], middle["value"])
    out = {"per_class": per_class, "deals": deals, "readings": readings,
           "from": {key: middle[key] for key in ("seconds", "iteration")},
           "to": {key: last[key] for key in ("seconds", "iteration")},
           "value_moves": moves.tolist(), "largest_value_move": float(np.abs(moves).max())}
    if stacks is not None and len(stacks) > 1:
        before, after = crossings(stacks, middle["value"]), crossings(stacks, last["value"])
        out["break_even_from"], out["break_even_to"] = before, after
        out["largest_break_even_move"] = (max((abs(b - a) for a, b in zip(before, after)), default=0.0)
                                          if len(before) == len(after) else None)
    return out


def bracket_cost(bracket, n_classes: int, seconds: float, workers: int) -> dict:
    """What the final bracket cost: deals (two sets per player, ``per_class`` each per hand class,
    the close classes' refinement deals and the focus round's) and wall seconds, on ``workers`` Ray
    workers (0: this process)."""
    drawn = drawn_deals(bracket.per_class, n_classes)
    return {"per_class": bracket.per_class, "deals": drawn + bracket.extra_deals + bracket.focus_deals,
            "refine_deals": bracket.extra_deals, "refine_rounds": bracket.rounds,
            "focus_deals": bracket.focus_deals, "seconds": seconds, "workers": workers}


def _break_even(game, bracket) -> dict:
    """For a list of stacks: where the button's sampled value crosses zero, and the span where its
    95% band does (``break_even_interval``)."""
    stacks = game.variant_values
    if stacks is None or len(stacks) < 2:
        return {}
    interval = crossing_interval(stacks, bracket.value, bracket.value_se)
    return {"break_even": crossings(stacks, bracket.value),
            "break_even_interval": list(interval) if interval else None}



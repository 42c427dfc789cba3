"""Whether a sampled run reaches its exploitability target (the upper end of its bracket's 95%
interval, worst stack), and if not, what it would take: more deals per hand class where the target
is below what the bracket resolves at its samples, else more iterations at the rate the upper end
fell across the run's evaluations.

The upper end is the lower estimate plus the bracket's resolution (``Bracket.resolution``), which
stays about the same at a fixed sample count while the lower estimate falls with the strategy's
exploitability: the rate is a power law in the iterations fitted on log-log to the upper ends less
the latest resolution, and the target is reached where that falls to the target less it."""

from __future__ import annotations

import math

import numpy as np

from distcfr.io.schema import MAX_ITERATION

MIN_POINTS = 3  # evaluations a rate is fitted to, at least
FIT_POINTS = 6  # and at most: the latest ones (early iterations fall at another rate)


def unresolved(bracket) -> np.ndarray:
    """(B,) bool: where the bracket cannot tell the strategy from an equilibrium: its interval's lower
    end (what the strategy is shown to lose at least) is below its resolution."""
    return bracket.interval()[0] < bracket.resolution()


def out_of_reach(bracket, target: float) -> bool:
    """Whether more iterations cannot bring the bracket's upper end under ``target``: it is above it,
    and at some stack the interval's lower end (what the strategy is shown to lose at least) is below
    the bracket's resolution (it cannot tell the strategy from an equilibrium) while the resolution
    is above the target. (Before that, early strategies' resolutions say little about the later ones'.)"""
    return bool(bracket.interval()[1].max() > target and (unresolved(bracket) & (bracket.resolution() > target)).any())


def noise_bound(bracket) -> bool:
    """Whether the bracket cannot tell the strategy from an equilibrium at any stack: everywhere its
    interval's lower end is below its resolution, so its upper end is mostly the bracket's own noise
    (a later bracket of the same samples would say the same of a better strategy)."""
    return bool(unresolved(bracket).all())


def samples_to_resolve(bracket, target: float) -> int:
    """Deals per hand class at which the bracket's resolution (shrinking as the square root of the
    samples) is half of ``target`` at every stack, leaving the other half to the strategy."""
    return math.ceil(bracket.per_class * (2 * bracket.resolution().max() / target) ** 2)


def power_fit(iterations: list[int], values: list[float]) -> tuple[float, float] | None:
    """(exponent, factor) of value ~= factor * iteration**exponent, least squares on log-log over the
    latest ``FIT_POINTS`` positive values; None with fewer than ``MIN_POINTS`` or where it does not fall."""
    points = [(i, v) for i, v in zip(iterations, values) if i > 0 and v > 0][-FIT_POINTS:]
    if len(points) < MIN_POINTS or len({i for i, _ in points}) < 2:
        return None
    exponent, log_factor = np.polyfit(*np.log(np.array(points, dtype=float)).T, 1)
    return (float(exponent), float(np.exp(log_factor))) if exponent < 0 else None


def target_summary(target: float, bracket, labels, history: list[dict], iteration: int,
                   seconds_per_iteration: float) -> dict:
    """The summary's ``target``: reached or not by the run's last bracket (``bracket``); if not,
    the deals per class that would resolve it where the bracket resolves no better than the target, and
    the iterations and seconds the fitted rate says it needs where it is in reach (None where it
    cannot say yet; None with a ``rate``: more than a run may have).
    ``history``: the run's evaluations, each with its ``iteration`` and ``upper`` end."""
    upper = bracket.interval()[1]
    worst = int(np.argmax(upper))
    floor = float(bracket.resolution()[worst])
    out = {"target": target, "upper_end": float(upper[worst]), "worst_stack": labels[worst],
           "reached": bool(upper[worst] <= target), "bracket_per_class": bracket.per_class,
           "resolution": float(bracket.resolution().max()), "evaluations": len(history),
           "out_of_reach": False, "samples_to_resolve": None, "rate": None, "iterations_needed": None,
           "seconds_needed": None}
    if out["reached"]:
        return out
    if out["resolution"] > target:
        out.update(out_of_reach=out_of_reach(bracket, target), samples_to_resolve=samples_to_resolve(bracket, target))
    fit = power_fit([h["iteration"] for h in history], [h["upper"] - floor for h in history])
    if out["out_of_reach"] or fit is None or target <= floor:
        return out
    log_needed = math.log((target - floor) / fit[1]) / fit[0]
    if log_needed <= math.log(max(iteration, 1)):  # the latest evaluations lie above their own fit: no honest estimate
        return out
    if log_needed > math.log(MAX_ITERATION):  # so slow a rate that no run may go that far
        return {**out, "rate": fit[0]}
    needed = math.exp(log_needed)
    return {**out, "rate": fit[0], "iterations_needed": math.ceil(needed),
            "seconds_needed": (needed - iteration) * seconds_per_iteration}

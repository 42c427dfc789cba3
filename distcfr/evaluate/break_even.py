"""Where a game's value changes sign along a parameter (draw27: the button's break-even stack)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def crossings(points: Sequence[float], values: Sequence[float]) -> list[float]:
    """Every point where ``values`` crosses zero between neighbours, linearly interpolated
    (a value of exactly zero counts once)."""
    x, y = np.asarray(points, dtype=float), np.asarray(values, dtype=float)
    out = []
    for i in range(len(x) - 1):
        if y[i] == 0:
            out.append(float(x[i]))
        elif y[i] * y[i + 1] < 0:
            out.append(float(x[i] + (x[i + 1] - x[i]) * y[i] / (y[i] - y[i + 1])))
    if len(y) and y[-1] == 0:
        out.append(float(x[-1]))
    return out


def bisect(value_at: Callable[[float], float], lo: float, hi: float, tolerance: float) -> float:
    """Refine a crossing in [lo, hi] (values of opposite signs) by bisection until the
    bracket is narrower than ``tolerance``; ``value_at(x)`` solves the game at x."""
    v_lo = value_at(lo)
    while hi - lo > tolerance:
        mid = (lo + hi) / 2
        v_mid = value_at(mid)
        if v_mid == 0:
            return mid
        if (v_mid > 0) == (v_lo > 0):
            lo, v_lo = mid, v_mid
        else:
            hi = mid
    return (lo + hi) / 2


def refine_crossings(stacks: Sequence[float], points: Sequence[float], value_at: Callable[[float], float],
                     tolerance: float) -> list[float]:
    """Bisect each interpolated crossing ``points`` between its two neighbouring ``stacks``;
    ``value_at(stack)`` is the game's value solved at one stack."""
    grid = np.asarray(stacks, dtype=float)
    refined = []
    for point in points:
        lo, hi = grid[grid <= point].max(), grid[grid >= point].min()
        refined.append(point if lo == hi else bisect(value_at, float(lo), float(hi), tolerance))
    return refined


def crossing_interval(points: Sequence[float], values: Sequence[float], errors: Sequence[float],
                      z: float = 1.96) -> tuple[float, float] | None:
    """The span of stacks where a sampled value's ``z``-sigma band crosses zero: from the first
    crossing of value - z error, value and value + z error to the last (None when none crosses)."""
    v, e = np.asarray(values, dtype=float), np.asarray(errors, dtype=float)
    found = [x for curve in (v - z * e, v, v + z * e) for x in crossings(points, curve)]
    return (min(found), max(found)) if found else None

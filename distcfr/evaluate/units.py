"""Exploitability in players' units, from the game's own unit (``Game.unit``): big blinds and
milli-big-blinds (mBB) per hand where the game is in BB (draw27), chips per game elsewhere (kuhn,
leduc, minipoker, community13: never called BB)."""

from __future__ import annotations

import math

BB = "BB"


def figure(x: float, decimals: int | None = None) -> str:
    """Three significant figures, fixed point from 0.001 up (``0.0123``, ``12.3``), else
    scientific (``4.12e-08``); ``decimals`` fixes the decimals instead."""
    if decimals is not None:
        return f"{x:.{decimals}f}"
    return f"{x:.2e}" if 0 < abs(x) < 1e-3 else f"{x:.{_decimals(x)}f}"


def _decimals(x: float) -> int:
    """The decimals that give ``x`` three significant figures (0 for zero and large numbers)."""
    return max(0, 2 - math.floor(math.log10(abs(x)))) if x else 0


def amount(x: float, unit: str, decimals: int | None = None) -> str:
    """``0.0123 BB (12.3 mBB)`` in big blinds, ``9.53e-05 chips`` in any other unit; ``decimals``
    (of the BB figure) fixes the figures."""
    text = f"{figure(x, decimals)} {unit}"
    if unit != BB:
        return text
    return f"{text} ({figure(1000 * x, None if decimals is None else max(decimals - 3, 0))} mBB)"


def per(unit: str) -> str:
    """What an amount is counted over: a hand of poker in BB, a game otherwise."""
    return "per hand" if unit == BB else "per game"


def exploitability_text(x: float, unit: str, interval: tuple[float, float] | None = None) -> str:
    """``0.0123 BB (12.3 mBB) per hand, in [0.0041, 0.0310] BB``: with an interval (sampled results),
    the figure and its interval in the same decimals (at least 4). An estimate below 0 (sampling
    noise, rounding) shows as 0: no strategy is exploitable by less."""
    x = max(x, 0.0)
    if interval is None:
        return f"{amount(x, unit)} {per(unit)}"
    decimals = max(4, _decimals(x)) if x >= 1e-3 or not x else None
    lo, hi = (figure(end, decimals) for end in interval)
    return f"{amount(x, unit, decimals)} {per(unit)}, in [{lo}, {hi}] {unit}"


def duration(seconds: float) -> str:
    """``42 s``, ``3.2 minutes``, ``5.1 hours`` or ``2.3 days``."""
    for size, name in ((86400, "days"), (3600, "hours"), (60, "minutes")):
        if seconds >= 2 * size:
            return f"{seconds / size:.1f} {name}"
    return f"{seconds:.0f} s"

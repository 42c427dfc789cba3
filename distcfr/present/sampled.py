"""How a sampled game's strategy files are read: one presentation module per game, each keeping
:class:`SampledPresentation` (what ``show`` prints, writes as JSON, plots and puts on a page, and
what a run prints and plots at its end). A sampled game's presentation is one entry in
``PRESENTATIONS``; ``show``, ``train`` and the HTML report ask :func:`sampled_presentation`."""

from __future__ import annotations

from importlib import import_module
from typing import Protocol

import numpy as np

from distcfr.errors import BadParameter

PRESENTATIONS = {"draw27": "distcfr.present.draw27", "nl27": "distcfr.present.nl27_sampled"}  # game -> module
PLOT_FILES = "--plot goes with a sampled nl27 file"  # the files whose presentation has a plot


class SampledPresentation(Protocol):
    """What a sampled game's presentation module defines (``keep``: the stack indices to show)."""

    def show_text(self, strategy, path, hand: str | None, keep: list[int]) -> str:
        """``show``'s table: the stored evaluation and the game's tables per stack, with ``hand`` that hand's play."""

    def show_json(self, strategy, keep: list[int]) -> dict:
        """``show --format json``: the same as plain dicts."""

    def save_plot(self, path, strategy, keep: list[int]) -> None:
        """``show --plot``: a PNG of the strategy (BadParameter where the game has none)."""

    def page(self, strategy, source: str) -> str:
        """``show --html``: one self-contained page."""

    def run_groups(self, strategy) -> dict | None:
        """The hand-group report a run prints at its end (None: the game prints none)."""

    def run_panels(self, strategy, groups: dict | None) -> list[tuple[str, dict[str, list[float]], bool]]:
        """The action panels a run's ``--plot`` draws per stack (``groups``: :meth:`run_groups`' report)."""


def sampled_presentation(game) -> SampledPresentation:
    """The presentation module of ``game``'s sampled strategy files."""
    return import_module(PRESENTATIONS[game.name])


def stack_indices(strategy, stack: float | None) -> list[int]:
    """The stacks ``show`` prints: all, or the one equal to ``stack`` (BadParameter naming the file's
    stacks when it has none such)."""
    stacks = strategy.kernel.stacks
    if stack is None:
        return list(range(len(stacks)))
    found = np.flatnonzero(np.isclose(stacks, stack))
    if not len(found):
        shown = ", ".join(f"{s:g}" for s in stacks[:12]) + (", ..." if len(stacks) > 12 else "")
        raise BadParameter(f"this file has no stack of {stack:g} BB (it has {shown})")
    return [int(found[0])]

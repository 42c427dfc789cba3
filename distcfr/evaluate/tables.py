"""Every strategy table of a strategy, per variant, headed by its value and exploitability
(the tables themselves are the game's: ``Game.tables``), fitted to the terminal's width.

A strategy of several variants (a list of stacks) prints the game's summary across the variants
(``Game.summary_tables``, e.g. push / call per hand class and stack) instead of every variant's
full tables, unless ``variants`` names the ones wanted (``python -m distcfr.show FILE --html
PATH`` writes every variant's full tables).
"""

from __future__ import annotations

import textwrap

from distcfr.evaluate.units import exploitability_text
from distcfr.games.table import terminal_width

FULL_VARIANTS = 1  # at most this many variants print their full tables unasked


def render_tables(strategy, width: int | None = None, variants: list[int] | None = None) -> str:
    """The tables of ``variants`` (default: every variant, or the game's summary across them when
    there are more than ``FULL_VARIANTS`` and the game has one), lines of at most ``width``
    characters (default: the terminal's)."""
    width = width or terminal_width()
    out = []
    expl = strategy.exploitability_per_variant()
    game = strategy.game
    labels = game.variant_labels
    if variants is None:
        summary = game.summary_tables(strategy) if len(labels) > FULL_VARIANTS else []
        if summary:
            worst = exploitability_text(expl.max(), game.unit)
            out.append(_fit(f"== {game.spec}: {len(labels)} stacks, exploitability at most {worst} (full tables per "
                            "stack: python -m distcfr.show FILE --html report.html) ==", width))
            out.extend(t.render(width) + "\n" for t in summary)
            return "\n".join(out)
        variants = list(range(len(labels)))
    for v in variants:
        tables = game.tables(strategy, v)
        if not tables:
            continue
        head = f"{game.spec}" + (f", stack {labels[v]}" if labels[v] else "")
        out.append(_fit(f"== {head}: value ({game.seats[0]}) {strategy.value(v):+.6f} {game.unit}, exploitability "
                        f"{exploitability_text(expl[v], game.unit)} ==", width))
        out.extend(t.render(width) + "\n" for t in tables)
    return "\n".join(out)


def _fit(line: str, width: int) -> str:
    """A heading in lines of at most ``width`` (its closing ``==`` left out when it does not fit)."""
    if len(line) > width and line.endswith(" =="):
        line = line[:-3]
    return "\n".join(textwrap.wrap(line, width))

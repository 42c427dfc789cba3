"""A strategy table as text, the way a game's players read it (each game builds its own in
``Game.tables``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[tuple[str, list]] = field(default_factory=list)  # (row label, cells: float | str | None)

    def render(self) -> str:
        cells = [[_cell(v) for v in values] for _, values in self.rows]
        label_width = max([len(r) for r, _ in self.rows] + [0])
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(self.columns)]
        lines = [self.title, " " * label_width + "  " + "  ".join(c.rjust(w) for c, w in zip(self.columns, widths))]
        for (label, _), row in zip(self.rows, cells):
            lines.append(label.rjust(label_width) + "  " + "  ".join(v.rjust(w) for v, w in zip(row, widths)))
        return "\n".join(lines)


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def prob_lookup(strategy, variant: int):
    """``p(label, action)``: one action's probability at an infoset of one variant."""
    return lambda label, action: strategy.action_probs(label, variant)[action]

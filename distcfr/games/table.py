"""A strategy table as text, the way a game's players read it (each game builds its own in
``Game.tables``), fitted to a terminal's width.

``Table.render(width)`` never prints a line longer than ``width``. A table that does not fit as it
is gets, in this order: its column headings wrapped onto (at most about) two lines, one space
between columns instead of two, then its columns split into blocks one under the other, each
repeating the row labels.
"""

from __future__ import annotations

import math
import shutil
import textwrap
from dataclasses import dataclass, field

DEFAULT_WIDTH = 80  # where the width is not known (not a terminal)


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` first), 80 when not a terminal."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def fit_line(line: str, width: int | None = None) -> str:
    """``line`` in lines of at most ``width`` (default: the terminal's), each continuation indented
    past the first line's leading spaces."""
    width = width or terminal_width()
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return "\n".join(textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False)) or line


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[tuple[str, list]] = field(default_factory=list)  # (row label, cells: float | str | None)

    def cells(self) -> list[list[str]]:
        """Every row's cells as printed (floats with 2 decimals, None as ``-``)."""
        return [[_cell(v) for v in values] for _, values in self.rows]

    def render(self, width: int | None = None) -> str:
        """The table in lines of at most ``width`` characters (default: the terminal's)."""
        width = max(int(width or terminal_width()), 20)
        cells = self.cells()
        label_width = max([len(r) for r, _ in self.rows] + [0])
        cell_widths = [max([0] + [len(row[i]) for row in cells]) for i in range(len(self.columns))]
        natural = [max(len(c), w) for c, w in zip(self.columns, cell_widths)]
        lines = textwrap.wrap(self.title, width) or [""]
        compact = [_wrapped_width(c, w) for c, w in zip(self.columns, cell_widths)]
        everything = range(len(self.columns))
        for widths, gap in ((natural, 2), (compact, 2), (compact, 1)):
            if _span(label_width, widths, gap) <= width:
                return "\n".join(lines + _block(self.rows, cells, label_width, self.columns, widths, everything, gap))
        label_width = min(label_width, width // 3)  # a label longer than that is cut
        for block in _split(label_width, compact, 1, width):
            lines += _block(self.rows, cells, label_width, self.columns, compact, block, 1)
        return "\n".join(line[:width] for line in lines)


def _span(label_width: int, widths: list[int], gap: int) -> int:
    return label_width + sum(gap + w for w in widths)


def _wrapped_width(heading: str, cell_width: int) -> int:
    """The narrowest column width (at least the cells') at which the heading takes at most two
    lines (more only where one word is longer than the cells)."""
    w = max([cell_width, 1] + [len(word) for word in heading.split()])
    while len(textwrap.wrap(heading, w)) > 2:
        w += 1
    return w


def _split(label_width: int, widths: list[int], gap: int, width: int) -> list[range]:
    """Consecutive column ranges, each fitting ``width`` beside the row labels."""
    blocks, start, used = [], 0, label_width
    for i, w in enumerate(widths):
        if used + gap + w > width and i > start:
            blocks.append(range(start, i))
            start, used = i, label_width
        used += gap + w
    blocks.append(range(start, len(widths)))
    return blocks


def _block(rows, cells, label_width: int, columns: list[str], widths: list[int], block: range, gap: int) -> list[str]:
    """The heading lines and rows of the columns in ``block``."""
    sep = " " * gap
    headings = [textwrap.wrap(columns[i], widths[i]) or [""] for i in block]
    depth = max(len(h) for h in headings)
    lines = []
    for k in range(depth):  # headings bottom-aligned, right-justified as the numbers are
        parts = [(h[k - depth + len(h)] if k >= depth - len(h) else "").rjust(widths[i])
                 for h, i in zip(headings, block)]
        lines.append((" " * label_width + sep + sep.join(parts)).rstrip())
    for (label, _), row in zip(rows, cells):
        lines.append(label[:label_width].rjust(label_width) + sep + sep.join(row[i].rjust(widths[i]) for i in block))
    return lines


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def short_prob(p: float) -> str:
    """A probability in at most 3 characters: ``1`` (at least .995), ``.62``, ``0`` (under .005)."""
    if p >= 0.995:
        return "1"
    if p < 0.005:
        return "0"
    return f"{p:.2f}"[1:]


def mix_cell(probs: dict[str, float], codes: dict[str, str]) -> str:
    """The actions a player takes at an infoset with their probabilities, e.g. ``c.38 r.62`` (code
    then probability; actions under .005 left out; ``c1``: always)."""
    shown = [f"{codes.get(a, a)}{short_prob(p)}" for a, p in probs.items() if p >= 0.005]
    return " ".join(shown) or "-"


def prob_lookup(strategy, variant: int):
    """``p(label, action)``: one action's probability at an infoset of one variant."""
    return lambda label, action: strategy.action_probs(label, variant)[action]

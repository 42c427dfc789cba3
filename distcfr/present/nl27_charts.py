"""nl27's charts for the HTML page (``show --html``), as inline SVG: per hand, best first, stacked
bars of the button's opening (fold / limp / open / all-in) and of the big blind's response to each
open, and per final hand the bet frequency after the draw on the main lines (limp-check,
open-call). The numbers are :mod:`distcfr.games.nl27_tables`'s (own reach weighted); every label
is escaped."""

from __future__ import annotations

import html

import numpy as np

from distcfr.games.nl27_tables import BUTTON, Spot, SpotReader, opening_kinds, post_spots

COLORS = {"fold": "#9aa3ad", "check": "#9aa3ad", "limp": "#7fb069", "call": "#7fb069", "open": "#4a7fc1",
          "bet": "#4a7fc1", "raise": "#e08a2e", "all-in": "#c0392b"}
BAR, ROW, LEFT = 320, 18, 60  # pixels: bar length, row height, room for the row labels
GRID_TITLE = "button's opening per hand (rows) and stack (columns)"


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _kind(column: str) -> str:
    """The colour family of a column (``open 2.5`` -> open, ``raise 9`` -> raise, ``BB bet`` -> bet)."""
    for word in reversed(column.split()):
        if word in COLORS:
            return word
    return "open" if "open" in column else "raise"


def stacked_bars(title: str, labels: list[str], spot: Spot) -> str:
    """One SVG: a bar per row (hand) split by the spot's columns (their shares of 100%); a row the
    player does not reach says so instead."""
    width = LEFT + BAR + 50
    height = 40 + ROW * len(labels)
    out = [f"<svg class='stack' width='{width}' height='{height}' viewBox='0 0 {width} {height}' role='img'>",
           f"<text x='0' y='14' class='title'>{_e(title)}</text>"]
    x = LEFT
    for column in spot.columns:  # the legend
        out.append(f"<rect x='{x}' y='22' width='10' height='10' fill='{COLORS[_kind(column)]}'"
                   f"{_shade(column, spot.columns)}/><text x='{x + 13}' y='31' class='small'>{_e(column)}</text>")
        x += 18 + 6 * len(column)
    for r, label in enumerate(labels):
        y = 40 + r * ROW
        out.append(f"<text x='{LEFT - 6}' y='{y + 12}' text-anchor='end'>{_e(label)}</text>")
        row = spot.freq[r]
        if np.isnan(row).all():
            out.append(f"<text x='{LEFT}' y='{y + 12}' class='small'>not reached</text>")
            continue
        x = float(LEFT)
        for column, p in zip(spot.columns, row):
            if np.isnan(p) or p <= 0:
                continue
            w = BAR * float(p)
            out.append(f"<rect x='{x:.1f}' y='{y + 2}' width='{w:.1f}' height='{ROW - 4}' "
                       f"fill='{COLORS[_kind(column)]}'{_shade(column, spot.columns)}>"
                       f"<title>{_e(label)}: {_e(column)} {100 * p:.0f}%</title></rect>")
            x += w
    out.append("</svg>")
    return "".join(out)


def _shade(column: str, columns: list[str]) -> str:
    """Lighter fills for the second, third ... column of the same colour family (two open sizes)."""
    same = [c for c in columns if _kind(c) == _kind(column)]
    return f" fill-opacity='{1 - 0.3 * same.index(column):.2f}'" if len(same) > 1 else ""


def nl27_charts(strategy, variant: int) -> str:
    """The charts of one stack (variant) as HTML: opening, the big blind versus each open, bet
    frequency after the draw per main line."""
    game = strategy.game
    reader = SpotReader(game, strategy, variant)
    hands = reader.hand_rows.labels
    charts = [stacked_bars("button's opening per hand", hands, reader.decision(()))]
    for code, label in game.actions(()):
        if code[0] == "r" and reader.possible((code,)):
            charts.append(stacked_bars(f"big blind facing the {label}", hands, reader.decision((code,))))
    for name, line in reader.main_lines():
        spots = post_spots(game, reader, line)
        charts.append(stacked_bars(f"after {name}: big blind first to act, per final hand", reader.final_order,
                                   spots["bb"]))
        charts.append(stacked_bars(f"after {name}: button after a check, per final hand", reader.final_order,
                                   spots["btn_checked"]))
    return "<div class='plots'>" + "".join(charts) + "</div>"


def opening_grid(strategy) -> str:
    """One SVG: per hand (rows, best first) and stack (columns) a small bar split into the button's
    fold / limp / open / all-in."""
    game = strategy.game
    kinds = opening_kinds(game)
    readers = [SpotReader(game, strategy, v) for v in range(len(game.variant_labels))]
    spots = [r.spot([()], BUTTON, {name: [category] for name, category in kinds}) for r in readers]
    hands, stacks = readers[0].hand_rows.labels, game.variant_labels
    cell = max(12, min(40, 640 // len(stacks)))
    width, top = LEFT + cell * len(stacks) + 10, 58
    height = top + ROW * len(hands)
    out = [f"<svg class='stack' width='{width}' height='{height}' viewBox='0 0 {width} {height}' role='img'>",
           f"<text x='0' y='14' class='title'>{_e(GRID_TITLE)}</text>"]
    x = LEFT
    for name, _ in kinds:
        out.append(f"<rect x='{x}' y='22' width='10' height='10' fill='{COLORS[name]}'/>"
                   f"<text x='{x + 13}' y='31' class='small'>{_e(name)}</text>")
        x += 18 + 6 * len(name)
    step = max(1, len(stacks) // 8)  # at most about 8 stack labels
    for j in range(0, len(stacks), step):
        out.append(f"<text x='{LEFT + cell * j + cell / 2:.1f}' y='{top - 6}' text-anchor='middle' "
                   f"class='small'>{_e(stacks[j])}</text>")
    for r, hand in enumerate(hands):
        y = top + r * ROW
        out.append(f"<text x='{LEFT - 6}' y='{y + 12}' text-anchor='end'>{_e(hand)}</text>")
        for j, spot in enumerate(spots):
            x0, mix = LEFT + cell * j, []
            for (name, _), p in zip(kinds, spot.freq[r]):
                if p > 0:
                    h = (ROW - 2) * float(p)
                    out.append(f"<rect x='{x0}' y='{y + 1 + sum(mix):.1f}' width='{cell - 1}' height='{h:.1f}' "
                               f"fill='{COLORS[name]}'/>")
                    mix.append(h)
            text = ", ".join(f"{name} {100 * p:.0f}%" for (name, _), p in zip(kinds, spot.freq[r]))
            out.append(f"<rect x='{x0}' y='{y}' width='{cell - 1}' height='{ROW}' fill-opacity='0'>"
                       f"<title>{_e(hand)} at {_e(stacks[j])}: {_e(text)}</title></rect>")
    out.append("</svg>")
    return "".join(out)


def nl27_section(strategy, most: int) -> str:
    """The charts section of the page: every stack's charts (the first open, the others collapsed;
    at most ``most`` stacks)."""
    labels = strategy.game.variant_labels
    out = ["<h2>Charts per hand</h2><p class='note'>Hands best first; after the draw the hand is the final "
           "one. Each bar is the player's share of each action, its hands weighted by how often its own play "
           "reaches the spot (bet sizes and the opponent's draws by how often the opponent plays them).</p>"]
    if len(labels) > 1:
        out.append(opening_grid(strategy))
    for v, label in enumerate(labels[:most]):
        charts = nl27_charts(strategy, v)
        if len(labels) == 1:
            out.append(charts)
        else:
            out.append(f"<details class='variant'{' open' if v == 0 else ''}><summary>stack {_e(label)}</summary>"
                       f"{charts}</details>")
    if len(labels) > most:
        out.append(f"<p class='note'>{len(labels)} stacks: charts of the first {most} only.</p>")
    return "\n".join(out)


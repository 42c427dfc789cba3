"""A sampled nl27 strategy (:mod:`distcfr.engine.sampled_nl27`) as a deuce-to-seven player studies
it: per stack the button's first action and the big blind's responses per lowball hand group
(:mod:`distcfr.present.lowball_groups`), the button facing a raise, the draw counts of both players
on the main lines (limp-check, each open called) with the pats that are not a made 9-low or better
called out (snows), and after the draw bet / check and call / raise / fold per final-hand group;
one hand's whole strategy (``show --hand``); an HTML page (``show --html``) and a PNG of the
button's opening per stack (``show --plot``).

The numbers come from :class:`~distcfr.present.nl27_view.Nl27View`, whose docstring says what
each is a share of.
"""

from __future__ import annotations

import numpy as np

from distcfr.cards import RANKS, format_cards, lowball27_rank
from distcfr.evaluate.units import BB, exploitability_text
from distcfr.games.nl27_abstraction import post_keys, value_label
from distcfr.games.nl27_tables import facing_text
from distcfr.games.table import Table, fit_line
from distcfr.present.lowball_groups import best_high
from distcfr.present.nl27_view import (
    BIG_BLIND,
    BUTTON,
    POST_DEALS,
    SEATS,
    SNOW_SPAN,
    GroupSpot,
    Nl27View,
    fold_columns,
    normal,
)


# ---- text ----------------------------------------------------------------------------------------
def _pcts(row) -> list[str | None]:
    return [None if np.isnan(x) else f"{100 * x:.0f}" for x in row]


def _table(title: str, labels: list[str], blocks: list[tuple[str, list[str], np.ndarray]],
           total: list | None = None) -> Table:
    """A Table of blocks (prefix, column names, (R, n) fractions) side by side, whole percents, with
    an ``all`` row (``total``: its fractions, block after block) when given."""
    columns = [f"{prefix}: {c}" if prefix else c for prefix, names, _ in blocks for c in names]
    table = Table(title, columns)
    for r, label in enumerate(labels):
        table.rows.append((label, [cell for _, _, m in blocks for cell in _pcts(m[r])]))
    if total is not None:
        table.rows.append(("all", _pcts(np.asarray(total, dtype=np.float64))))
    return table


def _share(spot: GroupSpot) -> np.ndarray:
    """(R, 1) each row's share of the spot's weight."""
    total = spot.mass.sum()
    return (spot.mass / total if total > 0 else np.full(len(spot.mass), np.nan))[:, None]


def stack_tables(view: Nl27View, v: int) -> list[Table | str]:
    """The tables (and snowing lines) of stack ``v``, in the order ``show`` prints them."""
    labels = [g.label for g in view.groups.groups]
    weight = view.weight[:, None]
    out: list[Table | str] = []
    first = view.decision((), v)
    out.append(_table("button's first action, % of the group's hands (hands: the group's share of dealt hands; "
                      "hand classes weighted by their dealt hands)", labels,
                      [("", ["hands"], weight), ("", first.columns, first.freq)], [1.0, *first.total()]))
    spots = [view.decision(h, v) for h in view.responses()]
    if spots:
        out.append(_table("big blind's response, % of the group's hands (its first decision: every dealt hand)",
                          labels, [(s.title, s.columns, s.freq) for s in spots],
                          [x for s in spots for x in s.total()]))
    for spot in (view.decision(h, v) for h in view.raised()):
        if spot.mass.sum() > 0:
            out.append(_table(f"button after {spot.title}, % of the group's hands that get there (weights: dealt "
                              "hands x the button's own reach; reach: the share of the group's hands that get "
                              "there)", labels, [("", ["reach"], spot.reached[:, None]), ("", spot.columns, spot.freq)],
                              [spot.mass.sum(), *spot.total()]))
    for name, line in view.main_lines():
        bb, btn = view.draws(line, v)
        if bb.mass.sum() <= 0 and btn.mass.sum() <= 0:
            out.append(f"{name}: not played at this stack")
            continue
        out.append(_table(f"draws after {name}: cards drawn, % of the group's hands that get there (weights: "
                          "dealt hands x own reach; reach: the share of the group's hands that get there; BTN: "
                          "the big blind's draw counts as often as its range draws each)", labels,
                          [("BB", ["reach"], bb.reached[:, None]), ("BB", bb.columns, bb.freq),
                           ("BTN", ["reach"], btn.reached[:, None]), ("BTN", btn.columns, btn.freq)],
                          [bb.mass.sum(), *bb.total(), btn.mass.sum(), *btn.total()]))
        out.append(snow_text(view, name, bb, btn))
        out += post_tables(view, name, line, v)
    return out


def snow_text(view: Nl27View, name: str, bb: GroupSpot, btn: GroupSpot) -> str:
    """Who stands pat on the line, and with what that is not a made 9-low or better (snows)."""
    top = RANKS[best_high(view.kernel.ranks, view.kernel.hand) + SNOW_SPAN]
    parts = []
    for seat, spot in (("big blind", bb), ("button", btn)):
        pat, weak, groups = view.snows(spot)
        listed = ", ".join(f"{label} {share:.1%}" for label, share in groups[:6])
        parts.append(f"the {seat} stands pat with {pat:.1%} of the hands it gets there with, {weak:.1%} without a "
                     f"made {top}-low or better{': ' + listed if listed else ''}")
    return f"snowing after {name}: " + "; ".join(parts)


def post_tables(view: Nl27View, name: str, line: tuple, v: int) -> list[Table | str]:
    """After the draw on ``line``: first actions, then the answers to a bet, per final-hand row, and
    the bluffs (bets without a made low) where rows are hand groups."""
    spots = view.post(line, v)
    labels = view.final_rows.labels
    what = ("% of the times the player is there with a final hand of the row (uniform deals: card chance x "
            "both players' strategies, every pair of draw counts; share: the row's part of those times)")
    a, b, c, d = (spots[k] for k in ("bb", "btn_checked", "btn_facing", "bb_facing"))
    return [_table(f"after the draw, {name}: the big blind's first action and the button's after a check, {what}",
                   labels, [("BB first", ["share"], _share(a)), ("BB first", ["bet", "check"], a.freq),
                            ("BTN after check", ["share"], _share(b)), ("BTN after check", ["bet", "check"], b.freq)],
                   [1.0, *a.total(), 1.0, *b.total()]),
            _table(f"after the draw, {name}: facing a bet (every size), {what}", labels,
                   [("BTN vs bet", ["share"], _share(c)), ("BTN vs bet", ["call", "raise", "fold"], c.freq),
                    ("BB vs bet", ["share"], _share(d)), ("BB vs bet", ["call", "raise", "fold"], d.freq)],
                   [1.0, *c.total(), 1.0, *d.total()]),
            *bluff_text(view, name, a, b)]


UNMADE = ("one pair", "two pair", "trips", "straight or flush", "full house or quads")  # no made low


def bluff_text(view: Nl27View, name: str, first: GroupSpot, checked: GroupSpot) -> list[str]:
    """One line: how often each player bets first (the button after a check) and what share of
    those bets hold no made low (a pair or worse); none where rows are value buckets."""
    labels = view.final_rows.labels
    if not any(label in UNMADE for label in labels):
        return []
    unmade = np.array([label in UNMADE for label in labels])
    parts = []
    for seat, spot in (("the big blind bets first", first), ("the button bets after a check", checked)):
        bets = np.nan_to_num(spot.freq[:, 0]) * spot.mass  # (R,) the times it bets with each row
        if spot.mass.sum() > 0 and bets.sum() > 0:
            parts.append(f"{seat} {bets.sum() / spot.mass.sum():.0%} of the time, {bets[unmade].sum() / bets.sum():.0%}"
                         " of those bets with a pair or worse")
    return [f"bluffs after {name}: " + "; ".join(parts)] if parts else []


def evaluation_line(strategy, v: int) -> str:
    """Stack ``v``'s heading: the stored value and exploitability interval (and the exact exploitability
    where known)."""
    label = strategy.game.variant_labels[v]
    rows = strategy.meta.get("evaluation") or []
    row = rows[v] if v < len(rows) and isinstance(rows[v], dict) else {}
    text = f"== stack {label}"
    if isinstance(row.get("value"), int | float):
        text += f": button's value {row['value']:+.4f}"
        if isinstance(row.get("value_se"), int | float):
            text += f" +- {row['value_se']:.4f}"
        text += " BB per hand"
    if isinstance(row.get("exploitability_ci"), list | tuple) and len(row["exploitability_ci"]) == 2:
        lo, hi = row["exploitability_ci"]
        text += f", exploitability {exploitability_text(row.get('exploitability', hi), BB, (lo, hi))}"
    if isinstance(row.get("exploitability_exact"), int | float):
        text += f", exact exploitability {max(row['exploitability_exact'], 0.0):.4g} BB per hand"
    return text + " =="


def show_text(strategy, path, hand: str | None = None, keep: list[int] | None = None,
              width: int | None = None, post_deals: int = POST_DEALS) -> str:
    """A sampled nl27 strategy as ``show`` prints it: per stack (those at ``keep``, default all)
    the tables of :func:`stack_tables`; with ``hand`` that hand's whole strategy first."""
    meta = strategy.meta
    view = Nl27View(strategy, post_deals)
    keep = list(range(len(view.stacks))) if keep is None else keep
    lines = [fit_line(f"{path}: {strategy.game.spec}, sampled {meta.get('algorithm', '?')} after "
                      f"{meta.get('iterations', 0)} iterations, {meta.get('deals', 0):,} deals", width)]
    if hand:
        lines.append(hand_text(view, hand, keep, width))
        return "\n".join(lines)
    for v in keep:
        lines.append("\n" + fit_line(evaluation_line(strategy, v), width))
        first = view.opening(v).total()
        lines.append(fit_line("button: " + ", ".join(f"{c} {x:.1%}" for c, x in zip(view.opening(v).columns, first))
                              + " of dealt hands", width))
        for item in stack_tables(view, v):
            lines.append("\n" + (item.render(width) if isinstance(item, Table) else fit_line(item, width)))
    lines.append("\n" + fit_line(LEGEND, width))
    return "\n".join(lines)


LEGEND = ("Hand groups: distcfr.present.lowball_groups (a class's group is its cards'). Before the draw and for "
          "the draws a number is a share of the group's hands that get to the spot; after the draw, of the times "
          "the player is there with a final hand of the row (a made low by its high card, one pair, two pair, "
          "trips, straight or flush, full house or quads). - : not reached, or an action the stack cannot make.")


# ---- one hand --------------------------------------------------------------------------------------
def _mix(probs, labels: list[str], legal=None) -> str:
    """``label p%`` of every action played at least 0.5% of the time, most played first."""
    order = np.argsort(-np.asarray(probs), kind="stable")
    parts = [f"{labels[a]} {probs[a]:.0%}" for a in order
             if probs[a] >= 0.005 and (legal is None or legal[a])]
    return ", ".join(parts) or "-"


def _count_cell(probs) -> str:
    """The draw counts played (``pat``, ``1`` ..): the one always played, else each played at least
    5% of the time with its whole percent (``pat 60, 1 40``)."""
    probs = normal(probs)
    top = int(np.argmax(probs))
    if probs[top] >= 0.995:
        return "pat" if top == 0 else str(top)
    return ", ".join(f"{'pat' if j == 0 else j} {100 * p:.0f}" for j, p in enumerate(probs) if p >= 0.05)


def hand_text(view: Nl27View, text: str, stacks: list[int], width: int | None = None) -> str:
    """One hand's whole strategy per stack: every decision before the draw, its draw count on every
    line (the button's per big-blind count), and after the draw on the main lines the play of its
    pat value (the final hand it holds when it stands pat; a drawing hand's final hand is unknown
    here), per draw count of the opponent."""
    k, game = view.kernel, view.game
    cards = k.classes.parse_hand(text, "--hand")
    cls = int(k.classes.classify(cards[None])[0][0])
    group = view.groups.groups[int(view.groups.ids[cls])].label
    rank = lowball27_rank(np.sort(cards)[None])
    value_key = int(post_keys(rank, k.key_post, k.deck, k.hand)[0])
    key = cls * k.n_values + value_key if k.recall else value_key  # keys with recall: (class, value)
    row = int(view.final_rows.of_key[value_key])
    out = [fit_line(f"{format_cards(cards)}: hand class {k.classes.label(cls)}, group {group}; standing pat its "
                    f"final hand is {value_label(cards)} ({view.final_rows.labels[row]}, post-draw key {key})",
                    width)]
    h = k.hand
    for v in stacks:
        out.append("\n" + fit_line(evaluation_line(view.strategy, v), width))
        for dec in k.pre_decisions:
            history = tuple(game.tree.histories[dec.node])
            labels = [label.replace("raise to ", "raise ") for _, label in game.actions(history)]
            probs = view.pre[dec.player][cls, dec.index, v, :len(labels)]
            legal = dec.alias[v, :len(labels)] == np.arange(len(labels))
            where = "first action" if not history else f"after {facing_text(game, history)}"
            out.append(fit_line(f"  {SEATS[dec.player]}, {where}: {_mix(probs, labels, legal)}", width))
        table = Table(f"cards drawn on each line (% of each count played at least 5% of the time): as the big "
                      f"blind, and as the button after the big blind drew 0..{h}",
                      ["BB", *(f"BTN, BB drew {j}" for j in range(h + 1))])
        for li, node in enumerate(k.lines):
            cells = [_count_cell(view.tables["bb_draw"][cls, li, v]),
                     *(_count_cell(view.tables["btn_draw"][cls, li, j, v]) for j in range(h + 1))]
            table.rows.append((line_name(tuple(game.tree.histories[node])), cells))
        out.append("\n" + table.render(width))
        for name, line in view.main_lines():
            for seat in (BIG_BLIND, BUTTON):
                out.append("\n" + _pat_table(view, name, line, seat, key, v).render(width))
    return "\n".join(out)


def line_name(history: tuple) -> str:
    """A line before the draw in a few characters: ``limp, r3, call``, ``open 2.5, all-in, call``."""
    words = []
    for i, code in enumerate(history):
        if code[0] == "r":
            words.append(("open " if i == 0 else "r") + code[1:])
        else:
            words.append({"c": "limp" if i == 0 else "call", "k": "check", "a": "all-in", "f": "fold"}[code])
    return ", ".join(words)


def _pat_table(view: Nl27View, name: str, line: tuple, seat: int, key: int, v: int) -> Table:
    """After the draw on ``line``, the play of post-draw key ``key`` standing pat as ``seat``, one row
    per draw count of the opponent: its first action (the button's after a check) and its answer to
    each bet."""
    k, game = view.kernel, view.game
    li = view.line_at[tuple(line)]
    t = k.templates[li]
    h, tree = k.hand, game.tree
    start = len(line) + 2
    at = {tuple(tree.histories[n])[start:]: i for i, n in enumerate(t.nodes)}
    mine, theirs = ((), ("k",)) if seat == BIG_BLIND else (("k",), ())  # its first decision; the opponent's
    spots = [("first" if seat == BIG_BLIND else "after check", mine)]
    betting = game.actions(tuple(tree.histories[t.nodes[at[theirs]]]))
    spots += [(f"vs {label}", (*theirs, code)) for code, label in betting if code[0] in "ba" and (*theirs, code) in at]
    columns, cells = [], [[] for _ in range(h + 1)]
    table_name = ("btn_post", "bb_post")[seat]
    for label, rel in spots:
        i = at[rel]
        dec = t.decisions[i]
        actions = [a.replace("raise to ", "raise ") for _, a in game.actions(tuple(tree.histories[t.nodes[i]]))]
        columns += [f"{label}: {a}" for a in actions]
        for other in range(h + 1):
            pair = other * (h + 1) if seat == BUTTON else other  # k1 (H+1) + k0, own count 0
            col = (t.base[seat] + dec.index) * k.k2 + pair
            probs = normal(fold_columns(view.tables[table_name][key, col], dec.alias))[v]
            legal = dec.alias[v, :len(actions)] == np.arange(len(actions))
            cells[other] += [f"{100 * p:.0f}" if ok else None for p, ok in zip(probs[:len(actions)], legal)]
    opponent = ("BB", "BTN")[seat]
    table = Table(f"after the draw, {name}, as the {SEATS[seat]} standing pat: % per draw count of the opponent",
                  columns)
    for other in range(h + 1):
        table.rows.append((f"{opponent} drew {other}" if other else f"{opponent} pat", cells[other]))
    return table


# ---- pictures --------------------------------------------------------------------------------------
def save_plot(path, strategy, keep: list[int] | None = None) -> None:
    """``show --plot``'s PNG: per stack (those at ``keep``, default all; at most ``PLOT_STACKS``, spread over
    the list) the button's first action per hand group as stacked bars (fold / limp / open / all-in,
    % of the group's hands), best group on top. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from distcfr.present.nl27_charts import COLORS
    from distcfr.present.plots import write_png

    view = Nl27View(strategy, post_deals=0)
    keep = list(range(len(view.stacks))) if keep is None else list(keep)
    if len(keep) > PLOT_STACKS:
        keep = [keep[i] for i in np.linspace(0, len(keep) - 1, PLOT_STACKS).round().astype(int)]
    labels = [g.label for g in view.groups.groups]
    hands = view.weight
    fig, axes = plt.subplots(1, len(keep), figsize=(2.2 + 4.0 * len(keep), 1.6 + 0.3 * len(labels)), squeeze=False,
                             sharey=True)
    for ax, v in zip(axes[0], keep):
        spot = view.opening(v)
        left = np.zeros(len(labels))
        y = np.arange(len(labels))
        for j, column in enumerate(spot.columns):
            share = np.nan_to_num(spot.freq[:, j]) * 100
            ax.barh(y, share, left=left, color=COLORS.get(column, "#888888"), label=column, height=0.8)
            left += share
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of the group's hands")
        ax.set_title(f"{view.stacks[v]}: " + ", ".join(f"{c} {x:.0%}" for c, x in zip(spot.columns, spot.total())),
                     fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0, 0].set_yticks(np.arange(len(labels)), [f"{label} ({100 * s:.1f}%)" for label, s in zip(labels, hands)],
                          fontsize=8)
    axes[0, 0].invert_yaxis()  # best group on top
    axes[0, 0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.0, -0.6 / (0.3 * len(labels))), ncol=4)
    fig.suptitle(f"button's first action per hand group (in brackets: its share of dealt hands)\n{strategy.game.spec}",
                 fontsize=9)
    write_png(path, fig)


def run_groups(strategy) -> None:
    """A run prints no hand-group table at its end (``show`` prints nl27's tables)."""
    return None


def run_panels(strategy, groups: dict | None = None) -> list[tuple[str, dict[str, list[float]], bool]]:
    """nl27's action panels of :func:`~distcfr.present.plots.save_sweep_plot`, per stack: the button's
    first action (fold / limp / open / all-in, shares of its hands), and how often the big blind
    folds to each of the button's first actions it may fold to."""
    view = Nl27View(strategy, post_deals=0)
    stacks = range(len(view.stacks))
    openings = [view.opening(v) for v in stacks]
    first = {name: [float(o.total()[j]) for o in openings] for j, name in enumerate(openings[0].columns)}
    folds = {}
    for history in view.responses():
        spots = [view.decision(history, v) for v in stacks]
        if "fold" in spots[0].columns:
            at = spots[0].columns.index("fold")
            folds[f"folds to {spots[0].title}"] = [float(s.total()[at]) for s in spots]
    return [("button's first action (share of hands)", first, False),
            ("big blind (share of its hands there)", folds, False)]


PLOT_STACKS = 4


# ---- HTML --------------------------------------------------------------------------------------------
def _html_of(table: Table) -> str:
    from distcfr.present.html_page import html_table

    return html_table(["", *table.columns], [[label, *("-" if c is None else c for c in cells)]
                                              for label, cells in table.rows], "groups", caption=table.title)


def page(strategy, source: str, post_deals: int = POST_DEALS) -> str:
    """The page of a sampled nl27 strategy: per stack the tables ``show`` prints, with bar charts of
    the button's first action and the big blind's responses, and the strategy of a hand of the best
    group."""
    from distcfr.present.html_page import esc, page
    from distcfr.present.nl27_charts import stacked_bars

    meta = strategy.meta
    view = Nl27View(strategy, post_deals)
    labels = [g.label for g in view.groups.groups]
    body = [f"<h1>{esc(strategy.game.spec)}</h1>",
            f"<p class='meta'>{esc(source)}: sampled {esc(meta.get('algorithm', '?'))} after "
            f"{esc(meta.get('iterations', 0))} iterations, {esc(meta.get('deals', 0))} deals; "
            f"{view.kernel.n_classes:,} hand classes in {len(labels)} lowball hand groups.</p>",
            f"<p class='note'>{esc(LEGEND)}</p>"]
    for v in range(len(view.stacks)):
        charts = [stacked_bars("button's first action per hand group", labels, view.opening(v))]
        charts += [stacked_bars(f"big blind facing the {view.decision(h, v).title}", labels, view.decision(h, v))
                   for h in view.responses()]
        parts = [f"<div class='plots'>{''.join(charts)}</div>"]
        for item in stack_tables(view, v):
            parts.append(_html_of(item) if isinstance(item, Table) else f"<p class='note'>{esc(item)}</p>")
        body.append(f"<details class='variant'{' open' if v == 0 else ''}><summary>"
                    f"{esc(evaluation_line(strategy, v).strip('= '))}</summary>{''.join(parts)}</details>")
    example = strategy.kernel.classes.label(int(np.flatnonzero(view.groups.ids == 0)[0]))  # of the best group
    body.append(f"<h2>One hand's strategy</h2><p class='note'>python -m distcfr.show FILE --hand CARDS prints it "
                "for any hand; here a hand of the best group's:</p>"
                f"<pre>{esc(hand_text(view, example, list(range(len(view.stacks))), 120))}</pre>")
    return page(f"distcfr: {strategy.game.spec}", body, {})


# ---- JSON ------------------------------------------------------------------------------------------
def show_json(strategy, keep: list[int] | None = None, post_deals: int = POST_DEALS) -> dict:
    """The tables ``show`` prints as plain dicts (``show --format json``): per stack (those at
    ``keep``, default all) its stored evaluation and every table (title, columns, rows of whole
    percents, None where blank) or note line."""
    view = Nl27View(strategy, post_deals)
    keep = list(range(len(view.stacks))) if keep is None else keep
    evaluation = strategy.meta.get("evaluation") or []
    meta = {key: value for key, value in strategy.meta.items() if key != "evaluation"}
    out = []
    for v in keep:
        items = []
        for item in stack_tables(view, v):
            if isinstance(item, Table):
                items.append({"title": item.title, "columns": item.columns,
                              "rows": [{"row": label, "cells": [None if c is None else int(c) for c in cells]}
                                       for label, cells in item.rows]})
            else:
                items.append({"note": item})
        out.append({"stack": view.stacks[v], "evaluation": evaluation[v] if v < len(evaluation) else None,
                    "tables": items})
    return {"game": strategy.game.spec, "mode": "sampled", "meta": meta, "stacks": out}

"""One self-contained HTML page of a strategy file (``python -m distcfr.show FILE --html PATH``):
inline CSS, inline SVG charts drawn here from the file's numbers, a little inline JavaScript for
the search boxes; no external URL, no server.

* Exact games (:func:`distcfr.evaluate.strategy.load_strategy`): value, exploitability and best
  responses per variant (computed as ``show`` computes them), value and exploitability against
  the stack for a list of stacks, the game's strategy tables per variant, and the decision tree:
  one collapsible node per (player, observation) with every infoset's action probabilities, a
  variant selector and a search box filtering infosets by label.
  nl27 pages add stacked bar charts per hand (:mod:`distcfr.present.nl27_charts`).
* Sampled draw27 files (:func:`distcfr.evaluate.class_strategy.load_class_strategy`): per stack
  the stored evaluation (value with its standard error, the exploitability bracket), value
  against the stack, push and call bar charts and the draws per hand group
  (:func:`distcfr.present.lowball_groups.group_report`), and a search box printing one hand's
  whole strategy as ``show --hand`` does, from per-class data embedded when it takes at most
  ``HAND_DATA_LIMIT`` bytes (the page says so when it does not).

Strategy files keep no convergence history (only the final evaluation); the page says so rather
than drawing one. Every string from the file is escaped (file metadata is untrusted); data for the
scripts sits in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped,
and the scripts write it into the page as text only.
"""

from __future__ import annotations

import math

import numpy as np

from distcfr.evaluate.class_strategy import KIND as CLASS_STRATEGY
from distcfr.evaluate.units import BB, amount, per
from distcfr.io.schema import file_format
from distcfr.present.html_page import esc, html_table, page

HAND_DATA_LIMIT = 4_000_000  # bytes of per-class data (push, call, top draws) a sampled page embeds at most
TREE_LIMIT = 2_000_000  # probabilities an exact page's decision tree embeds at most (then fewer variants)
FULL_TABLE_VARIANTS = 60  # an exact page shows every variant's full tables up to this many variants


def html_report(path) -> str:
    """The page of the strategy file at ``path`` (either kind), as one string."""
    if file_format(path) == CLASS_STRATEGY:
        from distcfr.evaluate.class_strategy import load_class_strategy

        strategy = load_class_strategy(path)
        if strategy.game.name == "nl27":  # its own page: bar charts per hand, before and after the draw
            from distcfr.present.nl27_sampled import nl27_page

            return nl27_page(strategy, str(path))
        return sampled_page(strategy, str(path))
    from distcfr.evaluate.strategy import load_strategy

    return exact_page(load_strategy(path), str(path))


# ---- exact games ------------------------------------------------------------------------------
def exact_page(strategy, source: str) -> str:
    """The page of a :class:`~distcfr.evaluate.strategy.Strategy` read from ``source``."""
    game, meta = strategy.game, strategy.meta
    labels = game.variant_labels
    expl = strategy.exploitability_per_variant()
    values = strategy.value_per_variant
    br = strategy.best_response_per_variant  # (2, V)
    body = [f"<h1>{esc(game.spec)}</h1>",
            f"<p class='meta'>{esc(source)}: {esc(meta.get('algorithm') or '?')} after "
            f"{esc(meta.get('iterations', 0))} iterations; values are the {esc(game.seats[0])}'s, in "
            f"{esc(game.unit)}.</p>",
            "<h2>Evaluation</h2>",
            html_table(["variant", f"value ({game.seats[0]})", f"exploitability {per(game.unit)}",
                         f"best response ({game.seats[0]})", f"best response ({game.seats[1]})"],
                        [[label or "-", f"{values[v]:+.6f}", amount(expl[v], game.unit), f"{br[0, v]:+.6f}",
                          f"{br[1, v]:+.6f}"]
                         for v, label in enumerate(labels)], "eval")]
    stacks = game.variant_values
    if stacks is not None and len(stacks) > 1:
        body.append("<h2>Value and exploitability against the stack</h2><div class='plots'>")
        body.append(_line_plot(f"value ({game.seats[0]}) per stack", list(stacks), [float(x) for x in values],
                               unit="BB"))
        body.append(_line_plot("exploitability per stack", list(stacks), [float(x) for x in expl], unit="BB",
                               zero=False))
        body.append("</div>")
    body.append("<h2>Convergence</h2><p class='note'>This file keeps no convergence history, only the final "
                "evaluation above. <code>python -m distcfr.train ... --plot run.png</code> draws it during a run.</p>")
    if game.name == "nl27":  # charts a deuce-to-seven player reads
        from distcfr.present.nl27_charts import nl27_section

        body.append(nl27_section(strategy, FULL_TABLE_VARIANTS))
    body.append(_exact_tables(strategy))
    tree, note = _tree_data(strategy)
    body.append("<h2>Decision tree</h2><p class='note'>One node per player and what that player has seen "
                "(the betting, and for draw27 the opponent's draw count); each row is an infoset "
                "<code>private|observation</code> with the probability of each action. " + esc(note) + "</p>"
                "<div class='controls'><label id='tree-variant-label'>stack <select id='tree-variant'></select>"
                "</label> "
                "<input id='tree-search' type='search' placeholder='filter infosets by label, e.g. K|pb'> "
                "<span id='tree-count'></span></div><div id='tree'></div>")
    return page(f"distcfr: {game.spec}", body, {"tree": tree})


def _exact_tables(strategy) -> str:
    """The game's tables as HTML: every variant's (collapsed beyond the first), and for several
    variants the summary across them first."""
    game = strategy.game
    labels = game.variant_labels
    out = ["<h2>Strategy tables</h2>"]
    if len(labels) > 1:
        out.extend(_table_obj(t) for t in game.summary_tables(strategy))
    if len(labels) > FULL_TABLE_VARIANTS:
        out.append(f"<p class='note'>{len(labels)} variants: full tables per variant left out "
                   "(the decision tree below has every infoset).</p>")
        return "\n".join(out)
    for v, label in enumerate(labels):
        tables = game.tables(strategy, v)
        if not tables:
            continue
        inner = "\n".join(_table_obj(t) for t in tables)
        if len(labels) == 1:
            out.append(inner)
        else:
            out.append(f"<details class='variant'><summary>stack {esc(label)}</summary>{inner}</details>")
    return "\n".join(out) if len(out) > 1 else ""


def _table_obj(table) -> str:
    """A :class:`distcfr.games.table.Table` as an HTML table."""
    rows = [[label, *cells] for (label, _), cells in zip(table.rows, table.cells())]
    return html_table(["", *table.columns], rows, "strat", caption=table.title)


def _tree_data(strategy) -> tuple[dict, str]:
    """The decision tree for the page's script: groups with their parent (the group whose
    observation is the longest proper prefix of theirs), private labels, actions and
    probabilities (V, privates, actions) rounded to 3 decimals; as many variants as fit
    ``TREE_LIMIT``."""
    layout = strategy.layout
    labels = strategy.game.variant_labels
    per_variant = int(sum(len(g.private_labels) * len(g.action_labels) for g in layout.groups))
    keep = max(1, min(len(labels), TREE_LIMIT // max(per_variant, 1)))
    note = "" if keep == len(labels) else f"The tree embeds the first {keep} of {len(labels)} variants only."
    by_observation: dict[str, int] = {}
    groups, start = [], 0
    probs = np.round(strategy.probs[:keep].astype(np.float64), 3)  # (V, n_infosets, A)
    for i, g in enumerate(layout.groups):
        by_observation.setdefault(g.observation, i)
        n, a = len(g.private_labels), len(g.action_labels)
        groups.append({"p": g.player, "o": g.observation, "priv": list(g.private_labels), "acts": list(g.action_labels),
                       "probs": probs[:, start:start + n, :a].tolist()})
        start += n
    for g in groups:
        o = g["o"]
        parents = [by_observation[o[:k]] for k in range(len(o) - 1, -1, -1) if o[:k] in by_observation]
        g["parent"] = parents[0] if parents else -1
    return {"variants": list(labels[:keep]), "groups": groups}, note


# ---- sampled draw27 ---------------------------------------------------------------------------
def sampled_page(strategy, source: str) -> str:
    """The page of a :class:`~distcfr.evaluate.class_strategy.ClassStrategy` read from ``source``."""
    from distcfr.present.lowball_groups import group_report

    game, meta, kernel = strategy.game, strategy.meta, strategy.kernel
    labels = list(game.variant_labels)
    evaluation = meta.get("evaluation") if isinstance(meta.get("evaluation"), list) else []
    body = [f"<h1>{esc(game.spec)}</h1>",
            f"<p class='meta'>{esc(source)}: sampled {esc(meta.get('algorithm', '?'))} after "
            f"{esc(meta.get('iterations', 0))} iterations, {esc(meta.get('deals', 0))} deals "
            f"(seed {esc(meta.get('seed', '?'))}, "
            f"batch {esc(meta.get('batch', '?'))}); {kernel.n_classes:,} hand classes; values in BB per hand for the "
            "button.</p>", "<h2>Evaluation</h2>"]
    rows, xs, ys, errs, highs = [], [], [], [], []
    exact = any(isinstance(row, dict) and "exploitability_exact" in row for row in evaluation)
    for v, label in enumerate(labels):
        row = evaluation[v] if v < len(evaluation) and isinstance(evaluation[v], dict) else {}
        value, se, high, ci = (_number(row.get("value")), _number(row.get("value_se")),
                               _number(row.get("exploitability")), row.get("exploitability_ci"))
        ci = [_number(x) for x in ci] if isinstance(ci, list) and len(ci) == 2 else [None, None]
        rows.append([label, "-" if value is None else f"{value:+.4f}", "-" if se is None else f"{se:.4f}",
                     "-" if value is None or se is None else f"[{value - 1.96 * se:+.4f}, {value + 1.96 * se:+.4f}]",
                     "-" if high is None else amount(max(high, 0.0), BB, 4),
                     "-" if None in ci else f"[{ci[0]:.4f}, {ci[1]:.4f}] BB"])
        if exact:
            x = _number(row.get("exploitability_exact"))
            rows[-1].append("-" if x is None else amount(max(x, 0.0), BB))
        if value is not None:
            xs.append(float(kernel.stacks[v]))
            ys.append(value)
            errs.append(1.96 * se if se is not None else 0.0)
            highs.append(high)
    columns = ["stack", "value", "standard error", "value, 95% interval", "exploitability per hand (upper estimate)",
               "exploitability, 95% interval", *(["exact exploitability (every deal enumerated)"] if exact else [])]
    body.append(html_table(columns, rows, "eval"))
    if not evaluation:
        body.append("<p class='note'>This file carries no evaluation (an interrupted run?).</p>")
    if len(xs) > 1:
        body.append("<h2>Value and exploitability against the stack</h2><div class='plots'>")
        body.append(_line_plot("button's value per stack (bars: 95% interval)", xs, ys, errs, unit="BB"))
        if all(h is not None for h in highs):
            body.append(_line_plot("exploitability per stack (upper estimate)", xs, highs, unit="BB", zero=False))
        body.append("</div>")
    body.append("<h2>Convergence</h2><p class='note'>This file keeps no convergence history, only the final "
                "evaluation above. <code>--summary-json</code> or <code>--plot</code> record it during a run.</p>")
    report = group_report(strategy)
    body.append("<h2>Push, call and draws per hand group</h2><p class='note'>hands: share of dealt hands; push, "
                "call: over the group's hands; BB draws: cards the big blind throws, among its hands that call; BTN "
                "draws: the button's, among its hands that push, after the big blind drew its most common count "
                "(groups: distcfr.present.lowball_groups).</p>")
    if len(report["stacks"]) > 1:
        body.append(html_table(["hand group", "hands", *(st["stack"] for st in report["stacks"])],
                                [[g["group"], _pct(g["hands"], 2),
                                  *(f"{_percent(st['groups'][i]['push'])}/{_percent(st['groups'][i]['call'])}"
                                    for st in report["stacks"])] for i, g in enumerate(report["groups"])],
                                "groups", caption="push / call in % of the group's hands, per hand group (rows) and "
                                "stack (columns)"))
    for v, stack in enumerate(report["stacks"]):
        body.append(f"<details class='variant'{' open' if v == 0 else ''}><summary>{esc(stack['stack'])}: button "
                    f"pushes {stack['push']:.1%} of hands, big blind calls {stack['call']:.1%}</summary>"
                    f"{_group_bars(report, v)}{_group_table(report, v)}</details>")
    hands, note = _hand_data(strategy)
    example, example_text = _example(strategy)
    body.append("<h2>One hand's strategy</h2><p class='note'>" + esc(note) + "</p>"
                f"<pre id='hand-example'>{esc(example_text)}</pre>"
                "<div class='controls'><input id='hand-search' type='search' autocomplete='off' "
                f"placeholder='a hand, e.g. {esc(example)}'></div><pre id='hand-result'></pre>")
    return page(f"distcfr: {game.spec}", body, {"hands": hands})


def _number(x) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) else None


def _pct(x, digits: int = 0) -> str:
    return "-" if x is None else f"{x:.{digits}%}"


def _percent(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}"


def _group_table(report: dict, v: int) -> str:
    stack, columns = report["stacks"][v], report["draw_columns"]
    k = stack["bb_common_draw"]
    head = ["hand group", "hands", "push", "call", *(f"BB draws {c}" for c in columns),
            *(f"BTN draws {c} (BB drew {k})" for c in columns)]
    rows = [[g["group"], _pct(g["hands"], 2), _pct(row["push"], 1), _pct(row["call"], 1),
             *(_pct(x) for x in row["bb_draws"]), *(_pct(x) for x in row["btn_draws"][k])]
            for g, row in zip(report["groups"], stack["groups"])]
    return html_table(head, rows, "groups")


def _group_bars(report: dict, v: int) -> str:
    """An SVG bar chart: push and call frequency per hand group at stack v."""
    groups, stack = report["groups"], report["stacks"][v]
    left, bar, row_h, width = 190, 300, 30, 560
    height = 24 + row_h * len(groups)
    out = [f"<svg class='bars' width='{width}' height='{height}' viewBox='0 0 {width} {height}' role='img'>",
           f"<text x='{left}' y='14' class='legend'><tspan class='push'>&#9632; push</tspan> "
           "<tspan class='call'>&#9632; call</tspan> (share of the group's hands)</text>"]
    for i, (g, row) in enumerate(zip(groups, stack["groups"])):
        y = 24 + i * row_h
        out.append(f"<text x='{left - 6}' y='{y + 15}' text-anchor='end'>{esc(g['group'])}</text>")
        for j, (key, cls) in enumerate((("push", "push"), ("call", "call"))):
            p = row[key]
            w = 0 if p is None else bar * max(0.0, min(1.0, p))
            out.append(f"<rect class='{cls}' x='{left}' y='{y + 2 + 12 * j}' width='{w:.1f}' height='11'>"
                       f"<title>{esc(g['group'])}: {key} {_pct(p, 1)}</title></rect>")
            out.append(f"<text x='{left + w + 4:.1f}' y='{y + 12 + 12 * j}' class='small'>{_pct(p, 1)}</text>")
    out.append("</svg>")
    return "".join(out)


def _hand_data(strategy) -> tuple[dict, str]:
    """Per hand class and stack what ``show --hand`` prints: push and call in whole percents and
    every draw of the big blind and of the button after each draw count played at least .005 of the
    time (mask, whole percent), as ``distcfr.present.draw27.hand_strategy`` chooses them. Where that would take
    more than ``HAND_DATA_LIMIT`` bytes, push and call only; where even those would, nothing."""
    kernel, t = strategy.kernel, strategy.tables
    n_classes, n_stacks, hand = kernel.n_classes, len(strategy.game.variant_labels), kernel.hand
    head = {"hand": hand, "ranks": kernel.classes.ranks, "suits": kernel.classes.suits,
            "stacks": list(strategy.game.variant_labels)}
    labels_size = n_classes * (4 + 3 * hand)
    played = int((t["bb_draw"] >= 0.005).sum() + (t["btn_draw"] >= 0.005).sum())  # draws the page lists
    full = labels_size + n_classes * n_stacks * (14 + 4 * (hand + 2)) + 8 * played
    short = labels_size + n_classes * n_stacks * 10
    limit = f"{HAND_DATA_LIMIT / 1e6:.0f} MB"
    if short > HAND_DATA_LIMIT:
        return head | {"embedded": False}, (
            f"Per-hand data is not embedded in this page: {n_classes:,} hand classes x {n_stacks} stacks would take "
            f"about {short / 1e6:.0f} MB even for push and call only (the limit is {limit}); "
            "python -m distcfr.show FILE --hand CARDS prints any hand. One hand as an example:")
    labels = [kernel.classes.label(c) for c in range(n_classes)]
    push, call = t["btn_push"][:, :, 1], t["bb_call"][:, :, 1]  # (C, V)
    if full > HAND_DATA_LIMIT:
        rows = [[[_whole(push[c, v]), _whole(call[c, v])] for v in range(n_stacks)] for c in range(n_classes)]
        return head | {"embedded": True, "labels": labels, "rows": rows}, (
            f"Type a hand (cards like 7c5d4h3s2c) for its push and call per stack. Its draws are not embedded: "
            f"{n_classes:,} hand classes x {n_stacks} stacks would take about {full / 1e6:.0f} MB (the limit is "
            f"{limit}); python -m distcfr.show FILE --hand CARDS prints them. One hand in full as an example:")
    bb, btn = _top_draws(t["bb_draw"]), _top_draws(t["btn_draw"])  # (C, V) and (C, H+1, V) lists
    rows = [[[_whole(push[c, v]), _whole(call[c, v]), bb[c][v], [btn[c][k][v] for k in range(hand + 1)]]
             for v in range(n_stacks)] for c in range(n_classes)]
    return head | {"embedded": True, "labels": labels, "rows": rows}, (
        "Type a hand (cards like 7c5d4h3s2c; the same output as python -m distcfr.show FILE --hand CARDS): push, "
        "call, the big blind's draws and the button's after each big-blind draw count, per stack. An example:")


def _example(strategy) -> tuple[str, str]:
    """A hand (the first class's representative) and its strategy as ``show --hand`` prints it."""
    from distcfr.cards import format_cards
    from distcfr.present.draw27 import hand_strategy  # the one place this page uses the terminal text

    hand = format_cards(strategy.kernel.classes.representative(np.array([0]))[0][::-1])
    return hand, hand_strategy(strategy, hand)


def _whole(p) -> int:
    return int(f"{float(p):.0%}"[:-1])


def _top_draws(probs: np.ndarray):
    """Nested lists (the leading axes of probs (..., M)) of [mask, whole percent, ...] for every
    mask played at least .005 of the time, in ``hand_strategy``'s order (most played first)."""
    order = np.argsort(-probs, axis=-1, kind="stable")
    top = np.take_along_axis(probs, order, axis=-1)

    def cell(masks, ps) -> list[int]:
        out = []
        for m, p in zip(masks.tolist(), ps.tolist()):
            if p < 0.005:
                break
            out += [m, _whole(p)]
        return out

    def nest(masks, ps):
        return cell(masks, ps) if masks.ndim == 1 else [nest(m, p) for m, p in zip(masks, ps)]

    return nest(order, top)


# ---- pieces -----------------------------------------------------------------------------------
def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About n round numbers spanning [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _line_plot(title: str, xs: list[float], ys: list[float], errs: list[float] | None = None, unit: str = "",
               zero: bool = True) -> str:
    """An SVG line chart of ys against xs (stacks), with error bars and the zero line."""
    width, height, left, right, top, bottom = 520, 280, 70, 16, 28, 40
    errs = errs or [0.0] * len(ys)
    lo = min(y - e for y, e in zip(ys, errs))
    hi = max(y + e for y, e in zip(ys, errs))
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = (hi - lo) * 0.05 or abs(hi) * 0.1 or 1.0
    lo, hi = lo - pad, hi + pad
    x0, x1 = min(xs), max(xs)
    x1 = x1 if x1 > x0 else x0 + 1

    def px(x):
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def py(y):
        return top + (hi - y) / (hi - lo) * (height - top - bottom)

    out = [f"<svg class='plot' width='{width}' height='{height}' viewBox='0 0 {width} {height}' role='img'>",
           f"<text x='{width / 2}' y='16' text-anchor='middle' class='title'>{esc(title)}</text>",
           f"<rect x='{left}' y='{top}' width='{width - left - right}' height='{height - top - bottom}' "
           "class='frame'/>"]
    for t in _ticks(lo, hi):
        out.append(f"<line x1='{left}' x2='{width - right}' y1='{py(t):.1f}' y2='{py(t):.1f}' class='grid'/>"
                   f"<text x='{left - 4}' y='{py(t) + 4:.1f}' text-anchor='end' class='small'>{t:.4g}</text>")
    for t in _ticks(x0, x1, 8):
        out.append(f"<text x='{px(t):.1f}' y='{height - bottom + 14}' text-anchor='middle' class='small'>{t:g}</text>")
    out.append(f"<text x='{(left + width - right) / 2}' y='{height - 6}' text-anchor='middle' class='small'>"
               f"stack{' (' + esc(unit) + ')' if unit else ''}</text>")
    if zero and lo < 0 < hi:
        out.append(f"<line x1='{left}' x2='{width - right}' y1='{py(0):.1f}' y2='{py(0):.1f}' class='zero'/>")
    points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
    out.append(f"<polyline points='{points}' class='line'/>")
    for x, y, e in zip(xs, ys, errs):
        if e > 0:
            out.append(f"<line x1='{px(x):.1f}' x2='{px(x):.1f}' y1='{py(y - e):.1f}' y2='{py(y + e):.1f}' "
                       "class='err'/>")
        out.append(f"<circle cx='{px(x):.1f}' cy='{py(y):.1f}' r='3' class='dot'><title>{x:g}: {y:+.4g}"
                   f"{f' +- {e:.2g}' if e > 0 else ''}</title></circle>")
    out.append("</svg>")
    return "".join(out)

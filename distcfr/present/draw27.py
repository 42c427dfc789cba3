"""A sampled draw27 strategy as people read it (its :class:`~distcfr.present.sampled.SampledPresentation`):
per stack its stored evaluation and hand-group table (:mod:`distcfr.present.lowball_groups`), one hand's
whole strategy, the same as JSON, its HTML page, and what a run prints and plots at its end."""

from __future__ import annotations

import math

import numpy as np

from distcfr.errors import BadParameter
from distcfr.evaluate.units import BB, amount
from distcfr.present.html_page import esc, html_table, line_plot
from distcfr.present.html_page import page as html_page
from distcfr.present.lowball_groups import group_report, render_groups
from distcfr.present.sampled import PLOT_FILES

HAND_DATA_LIMIT = 4_000_000  # bytes of per-class data (push, call, top draws) a page embeds at most


def save_plot(path, strategy, keep: list[int]) -> None:
    """draw27 files have no ``show --plot`` (a run's ``--plot`` draws their hand groups per stack)."""
    raise BadParameter(PLOT_FILES)


def run_groups(strategy) -> dict:
    """The hand-group report a run prints at its end, of the strategy as its file stores it."""
    return group_report(strategy, stored=True)


def run_panels(strategy, groups: dict | None) -> list[tuple[str, dict[str, list[float]], bool]]:
    """A run's ``--plot`` panels: the button's push and the big blind's call per stack, by hand group."""
    from distcfr.present.plots import group_panels

    return group_panels(groups or run_groups(strategy))


def _only(report: dict, keep: list[int]) -> dict:
    return report | {"stacks": [report["stacks"][v] for v in keep]}


def show_text(strategy, path, hand: str | None, keep: list[int]) -> str:
    """A sampled strategy as ``show`` prints it: per stack of ``keep`` its stored evaluation, how often
    the button pushes and the big blind calls (over all dealt hands) and its hand-group table
    (:mod:`distcfr.present.lowball_groups`), and with ``hand`` that hand's whole strategy."""
    game, meta = strategy.game, strategy.meta
    lines = [f"{path}: {game.spec}, sampled {meta.get('algorithm', '?')} after {meta.get('iterations', 0)} "
             f"iterations, {meta.get('deals', 0):,} deals"]
    if hand:  # the hand asked for first, then its context
        lines.append(hand_strategy(strategy, hand, keep) + "\n")
    lines.append(render_groups(_only(group_report(strategy), keep)))
    return "\n".join(lines)


def show_json(strategy, keep: list[int]) -> dict:
    """A sampled strategy as plain dicts for ``show --format json``: the game, the file's meta
    (without its evaluation), and per stack of ``keep`` the stored evaluation and the hand groups
    (:func:`~distcfr.present.lowball_groups.group_report`)."""
    meta = {key: value for key, value in strategy.meta.items() if key != "evaluation"}
    evaluation = strategy.meta.get("evaluation") or []
    return {"game": strategy.game.spec, "mode": "sampled", "meta": meta,
            "evaluation": [evaluation[v] for v in keep if v < len(evaluation)],
            "hand_groups": _only(group_report(strategy), keep)}


def hand_strategy(strategy, text: str, stacks: list[int] | None = None) -> str:
    """One hand's full strategy, per stack (those at ``stacks``, default all): push, call, the big
    blind's draw and the button's draw after each big-blind draw count, every discard played at
    least 0.5% of the time, written as the cards thrown."""
    from distcfr.cards import format_cards

    kernel = strategy.kernel
    cards = kernel.classes.parse_hand(text, "--hand")
    (cls,), (canonical,) = kernel.classes.classify(cards[None])
    t = strategy.tables
    lines = [f"{format_cards(cards)} (class {kernel.classes.label(int(cls))})"]

    def draws(probs) -> str:
        order = np.argsort(-probs, kind="stable")  # every discard it plays, most played first
        parts = []
        for mask in order:
            if probs[mask] < 0.005:
                break
            thrown = [canonical[j] for j in range(kernel.hand) if mask >> j & 1]
            parts.append(f"{'pat' if not thrown else 'throw ' + format_cards(thrown)} {probs[mask]:.0%}")
        return ", ".join(parts)

    labels = strategy.game.variant_labels
    for v in range(len(labels)) if stacks is None else stacks:
        label = labels[v]
        lines.append(f"  {label}: push {t['btn_push'][cls, v, 1]:.0%}, call {t['bb_call'][cls, v, 1]:.0%}; "
                     f"big blind draws: {draws(t['bb_draw'][cls, v])}")
        for k in range(kernel.hand + 1):
            lines.append(f"      button after the big blind drew {k}: {draws(t['btn_draw'][cls, k, v])}")
    return "\n".join(lines)


# ---- show --html ---------------------------------------------------------------------------
def page(strategy, source: str) -> str:
    """``show --html``'s page of a sampled draw27 strategy read from ``source``: per stack the stored
    evaluation (value with its standard error, the exploitability bracket), value against the stack,
    push and call bar charts and the draws per hand group, and a search box printing one hand's whole
    strategy as ``show --hand`` does, from per-class data embedded when it takes at most
    ``HAND_DATA_LIMIT`` bytes (the page says so when it does not)."""
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
        body.append(line_plot("button's value per stack (bars: 95% interval)", xs, ys, errs, unit="BB"))
        if all(h is not None for h in highs):
            body.append(line_plot("exploitability per stack (upper estimate)", xs, highs, unit="BB", zero=False))
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
    return html_page(f"distcfr: {game.spec}", body, {"hands": hands})


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
    time (mask, whole percent), as :func:`hand_strategy` chooses them. Where that would take
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

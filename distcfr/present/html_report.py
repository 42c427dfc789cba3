"""One self-contained HTML page of a strategy file (``python -m distcfr.show FILE --html PATH``):
inline CSS, inline SVG charts drawn here from the file's numbers, a little inline JavaScript for
the search boxes; no external URL, no server.

* Exact games (:func:`distcfr.evaluate.strategy.load_strategy`): value, exploitability and best
  responses per variant (computed as ``show`` computes them), value and exploitability against
  the stack for a list of stacks, the game's strategy tables per variant, and the decision tree:
  one collapsible node per (player, observation) with every infoset's action probabilities, a
  variant selector and a search box filtering infosets by label.
  nl27 pages add stacked bar charts per hand (:mod:`distcfr.present.nl27_charts`).
* Sampled files (:func:`distcfr.evaluate.class_strategy.load_class_strategy`): their game's own
  page (:mod:`distcfr.present.sampled`: draw27's hand groups, nl27's charts per hand group).

Strategy files keep no convergence history (only the final evaluation); the page says so rather
than drawing one. Every string from the file is escaped (file metadata is untrusted); data for the
scripts sits in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped,
and the scripts write it into the page as text only.
"""

from __future__ import annotations

import numpy as np

from distcfr.evaluate.class_strategy import KIND as CLASS_STRATEGY
from distcfr.evaluate.units import amount, per
from distcfr.io.schema import file_format
from distcfr.present.html_page import esc, html_table, line_plot, page

TREE_LIMIT = 2_000_000  # probabilities an exact page's decision tree embeds at most (then fewer variants)
FULL_TABLE_VARIANTS = 60  # an exact page shows every variant's full tables up to this many variants


def html_report(path) -> str:
    """The page of the strategy file at ``path`` (either kind), as one string."""
    if file_format(path) == CLASS_STRATEGY:
        from distcfr.evaluate.class_strategy import load_class_strategy
        from distcfr.present.sampled import sampled_presentation

        strategy = load_class_strategy(path)
        return sampled_presentation(strategy.game).page(strategy, str(path))
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
        body.append(line_plot(f"value ({game.seats[0]}) per stack", list(stacks), [float(x) for x in values],
                              unit="BB"))
        body.append(line_plot("exploitability per stack", list(stacks), [float(x) for x in expl], unit="BB",
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

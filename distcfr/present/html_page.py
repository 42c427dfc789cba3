"""The parts every HTML page of distcfr is made of: escaping, a table, and the page around a body
(its style, its script and the data the script reads)."""

from __future__ import annotations

import html
import json
import math


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def html_table(head: list[str], rows: list[list], cls: str, caption: str | None = None) -> str:
    out = [f"<div class='scroll'><table class='{cls}'>"]
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _json_script(data) -> str:
    """Data for the page's script; ``<``, ``>`` and ``&`` escaped so no string ends the block."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(title: str, body: list[str], data: dict) -> str:
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "script-src 'unsafe-inline'; img-src data:\">"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>\n" + "\n".join(body) +
            f"\n<p class='foot'>written by python -m distcfr.show --html</p>"
            f"\n<script type='application/json' id='report-data'>{_json_script(data)}</script>"
            f"\n<script>{_JS}</script>\n</body></html>\n")


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
.meta,.note,.foot{color:#555}.foot{font-size:.8em;margin-top:3em}
table{border-collapse:collapse;margin:.6em 0}td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #eee}
th{background:#f4f4f4;font-weight:600}td:first-child,th:first-child{text-align:left}
.scroll{overflow-x:auto}td:first-child{white-space:nowrap}
caption{text-align:left;font-weight:600;padding:4px 0}table.strat td{font-family:ui-monospace,monospace}
details{margin:2px 0}details details{margin-left:1.4em}summary{cursor:pointer}
.controls{margin:.6em 0}input[type=search]{width:22em;padding:3px}
.probs td{font-family:ui-monospace,monospace}.bar{display:inline-block;height:8px;background:#4a7fc1;margin-left:4px}
pre{background:#f7f7f7;padding:.6em;min-height:1em;white-space:pre-wrap}
svg text{font-size:12px;fill:#222}svg .small{font-size:10px;fill:#555}svg .title{font-weight:600}
.plots{display:flex;flex-wrap:wrap;gap:1em}.frame{fill:none;stroke:#bbb}.grid{stroke:#eee}.zero{stroke:#888}
.line{fill:none;stroke:#4a7fc1;stroke-width:1.5}.dot{fill:#4a7fc1}.err{stroke:#e08a2e}
rect.push{fill:#4a7fc1}rect.call{fill:#e08a2e}tspan.push{fill:#4a7fc1}tspan.call{fill:#e08a2e}
"""

# The page's script: builds the decision tree and answers the search boxes from the JSON block,
# writing file strings as text only (textContent), never as markup.
_JS = r"""
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const RANKS = "23456789TJQKA", SUITS = "cdhs";

  function el(tag, text) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  if (data.tree) setupTree(data.tree);
  if (data.hands) setupHands(data.hands);

  function setupTree(tree) {
    const root = document.getElementById("tree");
    const select = document.getElementById("tree-variant");
    const search = document.getElementById("tree-search");
    const count = document.getElementById("tree-count");
    tree.variants.forEach(function (label, v) {
      const option = el("option", label || "-");
      option.value = String(v);
      select.appendChild(option);
    });
    if (tree.variants.length < 2) document.getElementById("tree-variant-label").hidden = true;
    const children = tree.groups.map(function () { return []; });
    const roots = [];
    tree.groups.forEach(function (g, i) { (g.parent < 0 ? roots : children[g.parent]).push(i); });
    let top = [], total = 0;

    function build(i, v) {
      const g = tree.groups[i];
      const details = el("details");
      details.className = "node";
      details.dataset.observation = g.o;
      const who = "P" + (g.p + 1) + " \u00b7 " + (g.o === "" ? "(start)" : g.o);
      details.appendChild(el("summary", who + " \u00b7 " + g.priv.length + " infosets"));
      const table = el("table");
      table.className = "probs";
      const head = el("tr");
      head.appendChild(el("th", "infoset"));
      g.acts.forEach(function (a) { head.appendChild(el("th", a)); });
      table.appendChild(head);
      const node = {details: details, table: table, rows: [], kids: []};
      g.priv.forEach(function (priv, k) {
        const label = priv + "|" + g.o;
        const tr = el("tr");
        tr.dataset.label = label;
        tr.appendChild(el("td", label));
        g.acts.forEach(function (a, j) {
          const p = g.probs[v][k][j];
          const td = el("td", p.toFixed(3));
          td.dataset.action = a;
          const bar = el("span");
          bar.className = "bar";
          bar.style.width = Math.round(40 * p) + "px";
          td.appendChild(bar);
          tr.appendChild(td);
        });
        table.appendChild(tr);
        node.rows.push({tr: tr, label: label.toLowerCase()});
        total += 1;
      });
      details.appendChild(table);
      children[i].forEach(function (j) {
        const kid = build(j, v);
        node.kids.push(kid);
        details.appendChild(kid.details);
      });
      return node;
    }

    function filter() {
      const q = search.value.trim().toLowerCase();
      let shown = 0;
      function walk(node) {
        let any = false;
        node.rows.forEach(function (r) {
          const ok = !q || r.label.indexOf(q) >= 0;
          r.tr.hidden = !ok;
          if (ok) { any = true; shown += 1; }
        });
        node.table.hidden = !any;  // a node shown only for a match below it shows no empty table
        node.kids.forEach(function (kid) { if (walk(kid)) any = true; });
        node.details.hidden = !any;
        if (q) node.details.open = any;
        return any;
      }
      top.forEach(walk);
      count.textContent = q ? shown + " of " + total + " infosets match" : total + " infosets";
    }

    function render() {
      root.textContent = "";
      total = 0;
      const v = Number(select.value) || 0;
      top = roots.map(function (i) { return build(i, v); });
      top.forEach(function (node) { root.appendChild(node.details); node.details.open = true; });
      filter();
    }

    select.addEventListener("change", render);
    search.addEventListener("input", filter);
    render();
  }

  function setupHands(h) {
    const input = document.getElementById("hand-search");
    const out = document.getElementById("hand-result");
    if (!h.embedded) { input.disabled = true; return; }
    const index = new Map(h.labels.map(function (label, i) { return [label, i]; }));

    function format(cards) {
      return cards.map(function (c) { return RANKS[c >> 2] + SUITS[c & 3]; }).join("");
    }

    function parse(text) {  // as distcfr.cards.parse: cards like 7c or 10d, optionally separated
      const token = /[\s,]+|(10|[2-9tjqka])([cdhs])/iy;
      const cards = [];
      let pos = 0;
      while (pos < text.length) {
        token.lastIndex = pos;
        const m = token.exec(text);
        if (!m) return null;
        if (m[1]) {
          const rank = m[1] === "10" ? 8 : RANKS.indexOf(m[1].toUpperCase());
          cards.push(rank * 4 + SUITS.indexOf(m[2].toLowerCase()));
        }
        pos = token.lastIndex;
      }
      return cards;
    }

    function answer(text) {
      if (!text.trim()) return "";
      const cards = parse(text);
      const bad = "--hand needs " + h.hand + " different cards of this game's deck (ranks 2.." +
        RANKS[h.ranks - 1] + ", suits " + SUITS.slice(0, h.suits) + "), got '" + text + "'";
      if (cards === null || cards.length !== h.hand || new Set(cards).size !== h.hand) return bad;
      if (cards.some(function (c) { return (c >> 2) >= h.ranks || (c & 3) >= h.suits; })) return bad;
      // the suit-isomorphic class, as distcfr.games.hand_classes.canonical_columns
      const masks = [0, 0, 0, 0];
      cards.forEach(function (c) { masks[c & 3] |= 1 << (c >> 2); });
      const key = masks.map(function (m, s) { return m * 4 + (3 - s); });
      const suit = key.map(function (k) { return key.filter(function (o) { return o > k; }).length; });
      const canonCard = cards.map(function (c) { return (c >> 2) * 4 + suit[c & 3]; });
      const canonical = cards.map(function (c, i) { return i; })
        .sort(function (a, b) { return canonCard[a] - canonCard[b]; })
        .map(function (i) { return cards[i]; });
      const rep = canonCard.slice().sort(function (a, b) { return b - a; });
      const label = h.suits === 1 ? rep.map(function (c) { return RANKS[c >> 2]; }).join("") : format(rep);
      const cls = index.get(label);
      if (cls === undefined) return "no hand class " + label + " in this file";
      function draws(flat) {
        const parts = [];
        for (let i = 0; i < flat.length; i += 2) {
          const thrown = canonical.filter(function (c, j) { return (flat[i] >> j) & 1; });
          parts.push((thrown.length ? "throw " + format(thrown) : "pat") + " " + flat[i + 1] + "%");
        }
        return parts.join(", ");
      }
      const lines = [format(cards) + " (class " + label + ")"];
      h.stacks.forEach(function (stack, v) {
        const r = h.rows[cls][v];
        if (r.length === 2) {  // push and call only: the draws were too big to embed
          lines.push("  " + stack + ": push " + r[0] + "%, call " + r[1] + "%");
          return;
        }
        lines.push("  " + stack + ": push " + r[0] + "%, call " + r[1] + "%; big blind draws: " + draws(r[2]));
        r[3].forEach(function (flat, k) {
          lines.push("      button after the big blind drew " + k + ": " + draws(flat));
        });
      });
      return lines.join("\n");
    }

    input.addEventListener("input", function () { out.textContent = answer(input.value); });
  }
})();
"""


# ---- charts -----------------------------------------------------------------------------------
def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About n round numbers spanning [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def line_plot(title: str, xs: list[float], ys: list[float], errs: list[float] | None = None, unit: str = "",
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

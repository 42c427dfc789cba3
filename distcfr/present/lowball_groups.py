"""Hand groups of deuce-to-seven lowball, as players name them, and a sampled draw27 strategy
summarised per group: share of dealt hands, push and call frequency, and how many cards each
player draws.

A hand's group is a property of its cards alone (never of a strategy), decided by the first rule
that applies, in this order. Ranks count 2..9, T=10, J=11, Q=12, K=13, A=14 (aces high); a hand's
*best k-card low* is its lowest k distinct ranks; ``b`` is the high card of the best hand its size
allows: 7 for 5 cards (6-5-4-3-2 is a straight), else H+1 (4-3-2 for 3 cards).

1. **Pat X-low** (``"7-low"`` .. ``"J-low"``): a made low, i.e. no pair and, with 5 cards, neither
   a straight nor a flush (fewer than 5 cards make neither, see docs/GAMES.md), whose high card X is at
   most b+4 (J for 5 cards, 8 for 3). Pat J-low or better is exactly the hands that rank at
   most J-T-9-8-6. With 1-card hands every card is pat (nothing is left to draw to).
2. **Draw 1 to a X** (``"draw 1 to a 7"``, ``"to an 8"``, ``"to a 9"``): the best (H-1)-card low
   has a high card at most H+4 (9 for 5 cards: four cards to a 9 or better); X is that high card,
   or b if lower (5-4-3-2 and 6-5-4-3 are draws "to a 7"). The other card is whatever else the
   hand holds: a pair card (7-7-4-3-2), a high card (K-7-4-3-2, a made K-low, but played as a
   draw), or the card that makes a straight or flush (7-6-5-4-3).
3. **Draw 2 to a X** (``"draw 2 to a 7"``, ``"to an 8"``): the same with the best (H-2)-card low
   and a high card at most H+3 (8 for 5 cards), for hands of 3 or more cards.
4. **X-low, no draw** (``"Q-low, no draw"``, ``"K-low, no draw"``, ``"A-high, no draw"``): the
   remaining made lows, by high card.
5. **Straight or flush, no draw** (5-card hands only): the remaining unpaired hands.
6. **Pair or worse, no draw**: the remaining paired hands (one pair .. quads, with no draw above).

Smaller hands and decks keep the same rules with their own b; groups no hand of the deck falls in
are left out. The group of a hand class is the group of its representative (suits only matter
for flushes, which suit permutations keep). Shares of dealt hands, 5 cards from 52:

    7-low 0.16%   8-low 0.55%   9-low 1.33%   T-low 2.71%   J-low 4.91%
    draw 1 to a 7 2.79%   to an 8 3.59%   to a 9 6.26%    draw 2 to a 7 13.49%   to an 8 10.11%
    Q-low, no draw 2.71%   K-low 6.04%   A-high 11.15%   straight or flush 0.24%   pair or worse 33.97%

The summary per stack (:func:`group_report`) weighs each class by its share of dealt hands
(``hands_per_class / total``). Push and call are hand-weighted means of the button's push and the
big blind's call probability over the group's hands (every dealt hand, as ``show``'s overall
figures: card removal by the other player's hand is not taken into account). Draws are counted by
the number of cards thrown (the mask's popcount): the big blind's among its hands that call
(weights: share x call probability), the button's among its hands that push (share x push
probability), for each number of cards the big blind drew; the table shows the button's draw
after the big blind's most common draw count at that stack.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

import numpy as np

from distcfr.cards import RANKS
from distcfr.evaluate.units import BB, exploitability_text

if TYPE_CHECKING:
    from distcfr.evaluate.class_strategy import ClassStrategy
    from distcfr.games.hand_classes import HandClasses

PAT_SPAN = 4  # pat lows reach this many ranks above the best possible high card (7-low .. J-low)
DRAW_LIMIT = 3  # draw n: the best (H-n)-card low has a high card of rank index <= H + DRAW_LIMIT - n
COMPACT_STACKS = 8  # stacks per column group of the compact table
# the stored evaluation's keys each stack shows
EVALUATION_KEYS = ("value", "value_se", "exploitability", "exploitability_ci", "exploitability_exact")
# A group pushed or called less often than this prints as 0.0%: its draws are the solver's leftovers
# over hands that (almost) never get there, not a decision, so they are left blank (None in JSON).
PLAYED = 0.0005
KINDS = ("pat", "draw 1", "draw 2", "no draw")


@dataclasses.dataclass(frozen=True)
class Group:
    """One hand group: its label as printed and its kind (the rule that puts hands in it)."""

    label: str
    kind: str  # one of KINDS


def best_high(ranks: int, hand: int) -> int:
    """Rank index of the high card of the best made ``hand``-card low of a ``ranks``-rank deck
    (5 = the 7 for five cards, since 6-5-4-3-2 is a straight; else hand - 1)."""
    return min(5 if hand == 5 else hand - 1, ranks - 1)


def pat_limit(ranks: int, hand: int) -> int:
    """Rank index of the highest pat low: ``PAT_SPAN`` ranks above :func:`best_high` (the J for 5
    cards), every card for 1-card hands (nothing is left to draw to)."""
    return ranks - 1 if hand == 1 else min(best_high(ranks, hand) + PAT_SPAN, ranks - 1)


def _article(rank: int) -> str:
    return "an" if RANKS[rank] in "8A" else "a"


def all_groups(ranks: int, hand: int) -> list[Group]:
    """Every group a ``hand``-card hand of a ``ranks``-rank deck may fall in, best rule first
    (index = the id :func:`group_of_hands` returns)."""
    top, b = ranks - 1, best_high(ranks, hand)
    out = [Group(f"{RANKS[x]}-{'high' if x == 12 else 'low'}", "pat") for x in range(b, pat_limit(ranks, hand) + 1)]
    for n in (1, 2):
        if hand - n >= 1:
            limit = min(max(hand + DRAW_LIMIT - n, b), top)
            out += [Group(f"draw {n} to {_article(x)} {RANKS[x]}", f"draw {n}") for x in range(b, limit + 1)]
    out += [Group(f"{RANKS[x]}-{'high' if x == 12 else 'low'}, no draw", "no draw")
            for x in range(pat_limit(ranks, hand) + 1, top + 1)]
    if hand == 5:
        out.append(Group("straight or flush, no draw", "no draw"))
    if hand >= 2:
        out.append(Group("pair or worse, no draw", "no draw"))
    return out


def group_of_hands(hands: np.ndarray, ranks: int) -> np.ndarray:
    """(n,) int64 group id (an index into :func:`all_groups`) of hands (n, H) of card ids."""
    hands = np.asarray(hands, dtype=np.int64)
    n, hand = hands.shape
    b = best_high(ranks, hand)
    rank = hands >> 2  # (n, H)
    present = np.zeros((n, 13), dtype=bool)
    present[np.arange(n)[:, None], rank] = True
    distinct = present.sum(1)  # (n,)
    seen = np.cumsum(present, axis=1)  # (n, 13) distinct ranks up to each rank

    def lowest(k: int) -> np.ndarray:
        """(n,) high card of the lowest k distinct ranks; 99 where the hand has fewer."""
        return np.where(distinct >= k, np.argmax(seen >= k, axis=1), 99)

    high = rank.max(1)
    unpaired = distinct == hand
    rough = np.zeros(n, dtype=bool)  # straights and flushes (5 cards only): no made low
    if hand == 5:
        suit = hands & 3
        rough = unpaired & (((suit == suit[:, :1]).all(1)) | (high - rank.min(1) == 4))
    made = unpaired & ~rough

    groups = all_groups(ranks, hand)
    base = {kind: next((i for i, g in enumerate(groups) if g.kind == kind), 0) for kind in KINDS}
    pat = pat_limit(ranks, hand)
    choices = [(made & (high <= pat), base["pat"] + high - b)]
    for n_draw in (1, 2):
        if hand - n_draw >= 1:
            low = lowest(hand - n_draw)
            choices.append((low <= hand + DRAW_LIMIT - n_draw, base[f"draw {n_draw}"] + np.maximum(low, b) - b))
    choices.append((made, base["no draw"] + high - pat - 1))
    if hand == 5:
        choices.append((rough, np.full(n, len(groups) - 2)))
    ids = np.select([c for c, _ in choices], [v for _, v in choices], default=len(groups) - 1)  # the rest: paired
    return ids.astype(np.int64)


@dataclasses.dataclass(frozen=True)
class ClassGroups:
    """The non-empty groups of a deck's hand classes: ``ids`` (C,) int64 index into ``groups``."""

    groups: tuple[Group, ...]
    ids: np.ndarray
    share: np.ndarray  # (C,) float64 share of dealt hands of each class

    @property
    def n_groups(self) -> int:
        return len(self.groups)

    def sum(self, values: np.ndarray) -> np.ndarray:
        """(G, ...) float64 sums over each group's classes of values (C, ...)."""
        flat = values.reshape(len(self.ids), -1)
        k = flat.shape[1]
        at = (self.ids[:, None] * k + np.arange(k)).ravel()
        sums = np.bincount(at, weights=flat.ravel(), minlength=self.n_groups * k)
        return sums.reshape(self.n_groups, *values.shape[1:])


def class_groups(classes: HandClasses) -> ClassGroups:
    """The groups of a :class:`~distcfr.games.hand_classes.HandClasses`' classes, from their
    representatives; groups without a hand are left out."""
    every = group_of_hands(classes.representative(np.arange(classes.n_classes)), classes.ranks)
    used, ids = np.unique(every, return_inverse=True)
    groups = all_groups(classes.ranks, classes.hand)
    share = classes.hands_per_class / classes.hands_per_class.sum()
    return ClassGroups(tuple(groups[i] for i in used), ids.reshape(-1).astype(np.int64), share)


def draw_columns(hand: int) -> list[str]:
    """Names of the draw-count columns: pat, 1, 2, 3+ (fewer for hands under 3 cards)."""
    return ["pat", *(str(k) for k in range(1, min(hand, 2) + 1)), *(["3+"] if hand >= 3 else [])]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _num(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def _stack_tables(tables: dict[str, np.ndarray], v: int, stored: bool) -> dict[str, np.ndarray]:
    """Stack v's slice of each table, (C, ...) without the stack axis; with ``stored`` rounded to
    the float16 a strategy file keeps (then read back as float32, as ``load_class_strategy`` does)."""
    out = {"btn_push": tables["btn_push"][:, v, 1], "bb_call": tables["bb_call"][:, v, 1],
           "bb_draw": tables["bb_draw"][:, v], "btn_draw": tables["btn_draw"][:, :, v]}
    if stored:
        out = {name: t.astype(np.float16).astype(np.float32) for name, t in out.items()}
    return out


def group_report(strategy: ClassStrategy, groups: ClassGroups | None = None, stored: bool = False) -> dict:
    """Plain dicts (JSON-ready; None where a group has no weight, and draws None where its hands
    push or call less than ``PLAYED`` of the time) of a ClassStrategy per group:
    {"draw_columns": [...], "groups": [{"group", "kind", "hands"}], "stacks": [{"stack", "push",
    "call", "value"?, "value_se"?, "exploitability"?, "exploitability_ci"?, "exploitability_exact"?,
    "bb_common_draw", "groups": [{"group",
    "push", "call", "bb_draws" [per column], "btn_draws" [per big-blind draw count k][per column]}]}]}.
    Shares, push and call are fractions of 1. ``stored``: first round the probabilities as the
    strategy's file stores them, so a report printed before saving shows the numbers ``show``
    prints from the file."""
    kernel, tables = strategy.kernel, strategy.tables
    groups = groups or class_groups(kernel.classes)
    hand = kernel.hand
    columns = draw_columns(hand)
    bucket = np.minimum(kernel.mask_size, len(columns) - 1)  # (M,) column of each mask
    to_columns = (bucket[:, None] == np.arange(len(columns))).astype(np.float32)  # (M, n_columns)
    to_counts = (kernel.mask_size[:, None] == np.arange(hand + 1)).astype(np.float32)  # (M, H+1)
    share = groups.sum(groups.share)  # (G,)
    evaluation = strategy.meta.get("evaluation") or []
    stacks = []
    for v, label in enumerate(strategy.game.variant_labels):
        t = _stack_tables(tables, v, stored)
        push = groups.share * t["btn_push"]  # (C,) float64 weight of pushing hands
        call = groups.share * t["bb_call"]
        bb = t["bb_draw"]  # (C, M)
        group_push, group_call = _ratio(groups.sum(push), share), _ratio(groups.sum(call), share)
        bb_draws = _ratio(groups.sum(call[:, None] * (bb @ to_columns)), groups.sum(call)[:, None])  # (G, cols)
        bb_draws[~(group_call >= PLAYED)] = np.nan
        common = int(np.argmax(call @ (bb @ to_counts)))  # the big blind's most common draw count
        btn = t["btn_draw"] @ to_columns  # (C, H+1, cols)
        btn_draws = _ratio(groups.sum(push[:, None, None] * btn), groups.sum(push)[:, None, None])  # (G, H+1, cols)
        btn_draws[~(group_push >= PLAYED)] = np.nan
        row = {"stack": label, "push": float(push.sum()), "call": float(call.sum())}
        if v < len(evaluation):
            row.update({key: evaluation[v][key] for key in EVALUATION_KEYS if key in evaluation[v]})
        row["bb_common_draw"] = common
        row["groups"] = [{"group": g.label, "push": _num(group_push[i]), "call": _num(group_call[i]),
                          "bb_draws": [_num(x) for x in bb_draws[i]],
                          "btn_draws": [[_num(x) for x in after] for after in btn_draws[i]]}
                         for i, g in enumerate(groups.groups)]
        stacks.append(row)
    return {"draw_columns": columns,
            "groups": [{"group": g.label, "kind": g.kind, "hands": float(share[i])}
                       for i, g in enumerate(groups.groups)],
            "stacks": stacks}


def _pct(x, width: int, digits: int = 0) -> str:
    return f"{'-':>{width}}" if x is None else f"{x:>{width}.{digits}%}"


def render_stack(report: dict, v: int) -> str:
    """Stack v: its value, push and call frequency, exploitability, then the group table (group |
    hands | push | call | the big blind's draws | the button's draws)."""
    stack, columns = report["stacks"][v], report["draw_columns"]
    k = stack["bb_common_draw"]
    width = max(len(g["group"]) for g in report["groups"])
    draws = " ".join(f"{c:>4}" for c in columns)
    lines = [f"  {stack['stack']}{_value_text(stack)}  button pushes {stack['push']:.1%} of hands, "
             f"big blind calls {stack['call']:.1%}",
             *_exploitability_lines(stack),
             f"    {'':{width}}  {'':>6}  {'':>6}  {'':>6}   {'BB draws':<{len(draws)}}   BTN draws (BB drew {k})",
             f"    {'hand group':<{width}}  {'hands':>6}  {'push':>6}  {'call':>6}   {draws}   {draws}"]
    for g, row in zip(report["groups"], stack["groups"]):
        bb = " ".join(_pct(x, 4) for x in row["bb_draws"])
        btn = " ".join(_pct(x, 4) for x in row["btn_draws"][k])
        lines.append(f"    {g['group']:<{width}}  {_pct(g['hands'], 6, 2)}  {_pct(row['push'], 6, 1)}  "
                     f"{_pct(row['call'], 6, 1)}   {bb}   {btn}")
    return "\n".join(lines)


def _value_text(stack: dict) -> str:
    if "value" not in stack:
        return ""
    return f"  value {stack['value']:+.4f}" + (f" +- {stack['value_se']:.4f}" if "value_se" in stack else "") + " BB"


def _exploitability_lines(stack: dict) -> list[str]:
    """The stored bracket's line (none where the file has none): its upper estimate, in BB and mBB per
    hand, and its 95% interval; then the exact exploitability where it is known."""
    pad, lines = " " * len(stack["stack"]), []
    if "exploitability_ci" in stack:
        lo, hi = stack["exploitability_ci"]
        lines.append(f"  {pad}  exploitability {exploitability_text(stack.get('exploitability', hi), BB, (lo, hi))}")
    if "exploitability_exact" in stack:
        lines.append(f"  {pad}  exact exploitability {exploitability_text(stack['exploitability_exact'], BB)} "
                     "(every deal enumerated)")
    return lines


LEGEND = ("  hands: share of dealt hands; push, call: over the group's hands; BB draws: cards the big blind\n"
          "  throws, among its hands that call; BTN draws: the button's, among its hands that push, after the\n"
          "  big blind drew its most common count (groups: distcfr.present.lowball_groups)")


def render_groups(report: dict) -> str:
    """Every stack's line and group table, then what the columns mean."""
    return "\n\n".join([*(render_stack(report, v) for v in range(len(report["stacks"]))), LEGEND])


def render_compact(report: dict) -> str:
    """Push / call per group and stack (whole percents), in column groups of ``COMPACT_STACKS`` stacks."""
    width = max(len(g["group"]) for g in report["groups"])
    stacks = report["stacks"]
    out = ["  push / call per hand group (% of the group's hands; python -m distcfr.show FILE for the draws)"]
    for s in range(0, len(stacks), COMPACT_STACKS):
        block = stacks[s:s + COMPACT_STACKS]
        out.append(f"    {'hand group':<{width}}  {'hands':>6}" + "".join(f"  {st['stack']:>9}" for st in block))
        for i, g in enumerate(report["groups"]):
            cells = "".join(f"  {_whole(st['groups'][i]['push']) + '/' + _whole(st['groups'][i]['call']):>9}"
                            for st in block)
            out.append(f"    {g['group']:<{width}}  {_pct(g['hands'], 6, 2)}{cells}")
    return "\n".join(out)


def _whole(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}"

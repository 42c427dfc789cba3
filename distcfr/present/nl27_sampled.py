"""A sampled nl27 strategy (:mod:`distcfr.engine.sampled_nl27`) as a deuce-to-seven player studies
it: per stack the button's first action and the big blind's responses per lowball hand group
(:mod:`distcfr.present.lowball_groups`), the button facing a raise, the draw counts of both players
on the main lines (limp-check, each open called) with the pats that are not a made 9-low or better
called out (snows), and after the draw bet / check and call / raise / fold per final-hand group;
one hand's whole strategy (``show --hand``); an HTML page (``show --html``) and a PNG of the
button's opening per stack (``show --plot``).

What each number is a share of:

* before the draw and for the draws, a hand group's hands that reach the spot: each hand class
  weighted by its dealt hands (``hands_per_class``) times the player's own reach (the product of
  its own action probabilities along the line; 1 at its first decision). Card removal between the
  two hands is left out. The button's draw mixes the big blind's draw counts as often as the big
  blind's whole range on the line draws each;
* after the draw, the times the player is at the spot with a final hand of the group, on
  ``POST_DEALS`` deals drawn uniformly (fixed seed): card chance times both players' strategies,
  every pair of draw counts together. A final hand's group is its high card for a made low, else
  one pair, two pair, trips, straight or flush (5 cards), full house or quads, best first; where
  the file keys post-draw play by a few value buckets (``post=N``, N at most ``BUCKET_ROWS``) each
  bucket is a row, labelled by its best and worst hand. Bluffs: bets with no made low (a pair or
  worse).

A group reached with less than ``REACH_MIN`` of its weight is left blank (``-``), as is an action a
stack cannot make.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

import numpy as np

from distcfr.cards import RANKS, format_cards, lowball27_rank
from distcfr.evaluate.units import BB, exploitability_text
from distcfr.games.hand_classes import combinations
from distcfr.games.nl27_abstraction import post_keys, value_buckets, value_label
from distcfr.games.nl27_tables import POST_COLUMNS, action_kind, facing_text, opening_kinds, studied_lines
from distcfr.games.table import Table, fit_line
from distcfr.present.lowball_groups import best_high, class_groups, draw_columns

REACH_MIN = 0.005  # a row reached with less than this share of its weight is blank
POST_DEALS = 40_000  # deals drawn for the post-draw frequencies
POST_SEED = 2**31 - 5  # their stream (no solve draws from it)
CHUNK = 2048  # deals evaluated together
POST_MIN = 0.001  # after the draw a row under this share of a spot's times is blank
BUCKET_ROWS = 40  # up to this many value buckets print one row each; more are grouped like values
SNOW_SPAN = 2  # a pat is made when its high card is at most best_high + SNOW_SPAN (the 9 with 5 cards)
BUTTON, BIG_BLIND = 0, 1
SEATS = ("button", "big blind")


@dataclasses.dataclass(frozen=True)
class GroupSpot:
    """Action frequencies per row (hand group or final-hand group) at one spot: ``freq``
    (rows, columns) fractions, NaN where the row is not reached or the action not possible;
    ``mass`` (rows,) each row's weight at the spot; ``reached`` (rows,) the share of the row's
    weight that reaches the spot (NaN where unknown)."""

    title: str
    columns: list[str]
    freq: np.ndarray
    mass: np.ndarray
    reached: np.ndarray | None = None

    def total(self) -> np.ndarray:
        """(columns,) the frequencies over every row together (weighted by ``mass``)."""
        ok = ~np.isnan(self.freq)
        mass = self.mass.sum()
        if mass <= 0:
            return np.full(len(self.columns), np.nan)
        return np.where(ok.any(0), np.nansum(self.freq * self.mass[:, None], axis=0) / mass, np.nan)


def _ratio(num: np.ndarray, den: np.ndarray, floor) -> np.ndarray:
    """num / den[:, None] where den is positive and at least ``floor``, else NaN."""
    ok = (den > 0) & (den >= floor)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok[:, None], num / np.where(den > 0, den, 1)[:, None], np.nan)


# ---- final hands ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class FinalRows:
    """Rows of the post-draw tables: labels (best first) and the row of each post-draw key."""

    labels: list[str]
    of_key: np.ndarray  # (n_keys,) int64


def final_group(cards: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """((n,) int64 group id, labels) of final hands (n, H) card ids: a made low by its high card
    (``7-low`` .. ``A-high``), ``one pair``, ``two pair``, ``trips``, ``straight or flush`` (5 cards),
    ``full house or quads``."""
    n, h = cards.shape
    rank = np.sort(cards >> 2, axis=1)  # (n, H)
    same = np.diff(rank, axis=1) == 0  # (n, H-1) a card of the rank before it
    repeats = same.sum(1)  # (n,) H - distinct ranks
    triple = (same[:, 1:] & same[:, :-1]).any(1) if h > 2 else np.zeros(n, dtype=bool)  # three of a rank
    high = rank[:, -1]
    rough = np.zeros(n, dtype=bool)
    if h == 5:
        suit = cards & 3
        rough = (repeats == 0) & ((suit == suit[:, :1]).all(1) | (high - rank[:, 0] == 4))
    labels = [f"{RANKS[x]}-{'high' if x == 12 else 'low'}" for x in range(13)]
    labels += ["one pair", "two pair", "trips", "straight or flush", "full house or quads"]
    ids = np.select([(repeats == 0) & ~rough, repeats == 1, (repeats == 2) & ~triple, repeats == 2, rough],
                    [high, 13, 14, 15, 16], default=17)
    return ids.astype(np.int64), labels


def final_rows(deck, hand: int, post: str) -> FinalRows:
    """The rows of post-draw keys ``post`` (``value`` or a bucket count) of ``hand``-card hands of
    ``deck``: final-hand groups, best first, or one row per bucket where there are few."""
    deck = np.asarray(deck, dtype=np.int64)
    cards = deck[combinations(len(deck), hand)]  # (n, H) every hand of the deck
    ranks = lowball27_rank(cards)  # (n,)
    groups, labels = final_group(cards)
    values, first = np.unique(ranks, return_index=True)  # each value and a hand of it
    if post != "value" and int(post) <= BUCKET_ROWS:
        bucket = value_buckets(tuple(int(c) for c in deck), hand, int(post))[values]
        used = np.unique(bucket)
        out = [f"{value_label(cards[first[bucket == b][0]])} .. {value_label(cards[first[bucket == b][-1]])}"
               for b in used]
        of_key = np.full(int(used.max()) + 1, -1, dtype=np.int64)
        of_key[used] = np.arange(len(used))
        return FinalRows(out, of_key)
    group_of_value = groups[first]  # (n_values,) ranks are best first
    keys = post_keys(values, post, deck, hand)  # (n_values,) the key of each value, nondecreasing
    best = np.full(len(labels), np.iinfo(np.int64).max)
    np.minimum.at(best, group_of_value, values)
    order = [int(g) for g in np.argsort(best, kind="stable") if best[g] < np.iinfo(np.int64).max]
    row_of_group = np.full(len(labels), -1, dtype=np.int64)
    row_of_group[order] = np.arange(len(order))
    used, first_value = np.unique(keys, return_index=True)  # each key's best value comes first
    of_key = np.full(int(keys.max()) + 1, -1, dtype=np.int64)
    of_key[used] = row_of_group[group_of_value[first_value]]  # a bucket spanning groups: its best value's
    return FinalRows([labels[g] for g in order], of_key)


# ---- the view of one file --------------------------------------------------------------------------
class Nl27View:
    """The numbers ``show`` prints of a sampled nl27 :class:`~distcfr.evaluate.class_strategy.ClassStrategy`,
    every stack at once; ``post_deals`` deals for the post-draw frequencies."""

    def __init__(self, strategy, post_deals: int = POST_DEALS, seed: int = POST_SEED):
        self.strategy, self.game, self.kernel = strategy, strategy.game, strategy.kernel
        self.tables = strategy.tables
        self.post_deals, self.seed = post_deals, seed
        self.groups = class_groups(self.kernel.classes)
        self.weight = self.groups.sum(self.groups.share)  # (G,) each group's share of dealt hands
        tree = self.game.tree
        self.decision_at = {tuple(tree.histories[d.node]): d for d in self.kernel.pre_decisions}
        self.line_at = {tuple(tree.histories[n]): li for li, n in enumerate(self.kernel.lines)}

    @property
    def stacks(self) -> list[str]:
        return list(self.game.variant_labels)

    # ---- before the draw ---------------------------------------------------------------------
    @cached_property
    def pre(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player (C, N, B, A) float64 its strategy before the draw, copies folded."""
        out = []
        for u, name in enumerate(("btn_pre", "bb_pre")):
            table = np.asarray(self.tables[name], dtype=np.float64)
            folded = np.zeros_like(table)
            for dec in self.kernel.pre_decisions:
                if dec.player == u:
                    folded[:, dec.index] = _normal(_fold(table[:, dec.index], dec.alias))
            out.append(folded)
        return tuple(out)

    @cached_property
    def reach(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Node -> (button's, big blind's) own reach per hand class (C, B) of every node before the
        draw and of every line's start."""
        c, b = self.kernel.n_classes, len(self.kernel.stacks)
        reach = {0: (np.ones((c, b)), np.ones((c, b)))}
        for dec in self.kernel.pre_decisions:  # breadth first: a node's reach is known before its children's
            for a, child in enumerate(dec.children):
                r = list(reach[dec.node])
                r[dec.player] = r[dec.player] * self.pre[dec.player][:, dec.index, :, a]
                reach[child] = tuple(r)
        return reach

    def possible(self, history: tuple) -> bool:
        return tuple(history) in self.decision_at or tuple(history) in self.line_at

    def decision(self, history: tuple, v: int, merge: dict[str, list[str]] | None = None) -> GroupSpot:
        """The acting player's actions after ``history`` at stack ``v`` per hand group (one column per
        action, or per ``merge`` name: the action categories it sums)."""
        dec = self.decision_at[tuple(history)]
        u = dec.player
        actions = self.game.actions(tuple(history))
        probs = self.pre[u][:, dec.index, v, :len(actions)]  # (C, n)
        legal = dec.alias[v, :len(actions)] == np.arange(len(actions))  # (n,) the others copy an action
        if merge is not None:
            cats = [action_kind(code) for code, _ in actions]
            probs = np.stack([probs[:, [a for a, cat in enumerate(cats) if cat in want]].sum(1)
                              for want in merge.values()], axis=1)
            legal = np.array([any(legal[a] for a, cat in enumerate(cats) if cat in want) for want in merge.values()])
            columns = list(merge)
        else:
            columns = [label.replace("raise to ", "raise ") for _, label in actions]
        own = self.groups.share * self.reach[dec.node][u][:, v]  # (C,) dealt hands x own reach
        den = self.groups.sum(own)  # (G,)
        freq = _ratio(self.groups.sum(own[:, None] * probs), den, REACH_MIN * self.weight)
        freq[:, ~legal] = np.nan
        title = "first action" if not history else facing_text(self.game, tuple(history))
        return GroupSpot(title, columns, freq, den, den / self.weight)

    def opening(self, v: int) -> GroupSpot:
        """The button's first action merged as fold / limp / open (every size) / all-in."""
        return self.decision((), v, {name: [category] for name, category in opening_kinds(self.game)})

    def responses(self) -> list[tuple]:
        """Histories of the big blind's first decision: facing each first action but the fold."""
        return [(code,) for code, _ in self.game.actions(()) if code != "f" and self.possible((code,))]

    def raised(self) -> list[tuple]:
        """Histories of the button facing the big blind's raise or all-in."""
        return [(*h, code) for h in self.responses() for code, _ in self.game.actions(h)
                if code[0] in "ra" and (*h, code) in self.decision_at
                and self.decision_at[(*h, code)].player == BUTTON]

    def main_lines(self) -> list[tuple[str, tuple]]:
        """(name, history) of the lines reaching the draw that players study: limp-check, each open
        called."""
        return [(name, line) for name, line in studied_lines(self.game) if line in self.line_at]

    # ---- the draws -------------------------------------------------------------------------------
    def draws(self, line: tuple, v: int) -> tuple[GroupSpot, GroupSpot]:
        """(big blind's, button's) draw counts (pat, 1, 2, 3+) on ``line`` at stack ``v`` per hand
        group; the button's mixes the big blind's counts as the big blind's range plays them."""
        li = self.line_at[tuple(line)]
        node = self.kernel.lines[li]
        h = self.kernel.hand
        columns = draw_columns(h)
        to_columns = (np.minimum(np.arange(h + 1), len(columns) - 1)[:, None] == np.arange(len(columns)))
        bb = _normal(self.tables["bb_draw"][:, li, v])  # (C, H+1)
        own1 = self.groups.share * self.reach[node][BIG_BLIND][:, v]  # (C,)
        counts = own1 @ bb  # (H+1,) how often the big blind's range draws each count here
        counts = counts / counts.sum() if counts.sum() > 0 else np.full(h + 1, 1 / (h + 1))
        btn = np.einsum("k,ckj->cj", counts, _normal(self.tables["btn_draw"][:, li, :, v]))
        own0 = self.groups.share * self.reach[node][BUTTON][:, v]
        out = []
        for own, probs, seat in ((own1, bb, "BB"), (own0, btn, "BTN")):
            den = self.groups.sum(own)
            freq = _ratio(self.groups.sum(own[:, None] * (probs @ to_columns)), den, REACH_MIN * self.weight)
            out.append(GroupSpot(seat, columns, freq, den, den / self.weight))
        return out[0], out[1]

    def made_groups(self) -> np.ndarray:
        """(G,) bool: the groups of made lows whose high card is at most the 9 (5 cards; best high
        card + ``SNOW_SPAN`` on other decks): a pat with any other hand is a snow or a thin pat."""
        top = best_high(self.kernel.ranks, self.kernel.hand) + SNOW_SPAN
        made = [RANKS[x] + "-low" for x in range(top + 1)]
        return np.array([g.kind == "pat" and g.label in made for g in self.groups.groups])

    def snows(self, spot: GroupSpot, limit: float = 0.0005) -> tuple[float, float, list[tuple[str, float]]]:
        """(pat share, share pat without a made 9-low or better, [(group, its share)] largest first) of
        the hands a draw spot's player reaches it with; groups under ``limit`` left out."""
        total = spot.mass.sum()
        if total <= 0:
            return 0.0, 0.0, []
        pat = np.nan_to_num(spot.freq[:, 0]) * spot.mass / total  # (G,)
        weak = np.where(self.made_groups(), 0.0, pat)
        order = np.argsort(-weak, kind="stable")
        return float(pat.sum()), float(weak.sum()), [(self.groups.groups[i].label, float(weak[i])) for i in order
                                                      if weak[i] >= limit]

    # ---- after the draw --------------------------------------------------------------------------
    @cached_property
    def final_rows(self) -> FinalRows:
        k = self.kernel
        return final_rows(k.deck, k.hand, k.key_post)

    @cached_property
    def post_sums(self) -> dict[tuple, dict[str, tuple[np.ndarray, np.ndarray]]]:
        """Line -> spot (``POST_COLUMNS``) -> (num (R, columns, B), den (R, B)): the joint reach of the
        spot per final-hand row, and of each column, summed over ``post_deals`` uniform deals."""
        sums = {}
        lines = self.main_lines()
        for _, line in lines:
            sums[line] = {spot: (np.zeros((len(self.final_rows.labels), len(cols), len(self.kernel.stacks))),
                                 np.zeros((len(self.final_rows.labels), len(self.kernel.stacks))))
                          for spot, cols in POST_COLUMNS.items()}
        done = 0
        while done < self.post_deals and lines:
            n = min(CHUNK, self.post_deals - done)
            deals = self.kernel.sample_deals(self.seed, 0, done // CHUNK, n)
            for _, line in lines:
                self._add_post(line, deals, sums[line])
            done += n
        return sums

    def _add_post(self, line: tuple, deals: np.ndarray, sums: dict) -> None:
        """Add one chunk of deals' joint reach per spot, row and column after the draw on ``line``."""
        k, tables = self.kernel, self.tables
        li = self.line_at[line]
        node, t = k.lines[li], k.templates[li]
        hh, k2 = k.hand + 1, k.k2
        d, b = len(deals), len(k.stacks)
        classes, _, keys = k.hands(deals)  # the kernel's own classes and post-draw keys (D, K2) per deal
        r0 = self.reach[node][BUTTON][classes[0]]  # (D, B)
        r1 = self.reach[node][BIG_BLIND][classes[1]]
        s1 = _normal(tables["bb_draw"][classes[1], li])  # (D, B, k1)
        s0 = _normal(tables["btn_draw"][classes[0], li])  # (D, k1, B, k0)
        reach1 = np.repeat((r1[:, :, None] * s1).transpose(0, 2, 1), hh, axis=1)  # (D, K2, B)
        reach0 = (r0[:, None, :, None] * s0).transpose(0, 1, 3, 2).reshape(d, k2, b)  # (D, K2, B)
        rows = [self.final_rows.of_key[keys[u] % k.n_values] for u in (0, 1)]  # (D, K2) each player's row (by value)
        tree = self.game.tree
        start = len(line) + 2  # past both draws
        node_reach = {0: (reach0, reach1)}
        cols = np.arange(k2)
        names = ("btn_post", "bb_post")
        for i, kind in enumerate(t.kind):
            if kind != "decision":
                continue
            dec = t.decisions[i]
            u = dec.player
            col = (t.base[u] + dec.index) * k2 + cols  # (K2,)
            probs = _normal(_fold(tables[names[u]][keys[u], col[None, :]], dec.alias))
            for a, child in enumerate(t.children[i]):  # (D, K2, B, A) probs
                r = list(node_reach[i])
                r[u] = r[u] * probs[..., a]
                node_reach[child] = tuple(r)
            history = tuple(tree.histories[t.nodes[i]])
            spot = _post_spot(history[start:])
            if spot is None:
                continue
            joint = node_reach[i][0] * node_reach[i][1]  # (D, K2, B)
            cats = [action_kind(code) for code, _ in self.game.actions(history)]
            num, den = sums[spot]
            flat = (rows[u][..., None] * b + np.arange(b)).ravel()  # (D K2 B,) row-major (row, stack)
            size = num.shape[0] * b
            den += np.bincount(flat, joint.ravel(), size).reshape(-1, b)
            for j, want in enumerate(POST_COLUMNS[spot].values()):
                picked = [a for a, cat in enumerate(cats) if cat in want]
                if picked:
                    w = joint * probs[..., picked].sum(-1)
                    num[:, j] += np.bincount(flat, w.ravel(), size).reshape(-1, b)

    def post(self, line: tuple, v: int) -> dict[str, GroupSpot]:
        """After the draw on ``line`` at stack ``v``, per final-hand row: the big blind's first action,
        the button's after a check, the button facing a bet, the big blind facing a bet after checking."""
        out = {}
        for spot, (num, den) in self.post_sums[tuple(line)].items():
            mass = den[:, v]  # (R,)
            freq = _ratio(num[:, :, v], mass, POST_MIN * mass.sum())
            out[spot] = GroupSpot(spot, list(POST_COLUMNS[spot]), freq, mass)
        return out


def _normal(probs) -> np.ndarray:
    """float64 ``probs`` (..., A) scaled to sum to 1 over the last axis (a file's float16 rows miss
    it by up to about 1e-3); rows of zeros stay zeros."""
    probs = np.asarray(probs, dtype=np.float64)
    total = probs.sum(-1, keepdims=True)
    return np.divide(probs, total, out=np.zeros_like(probs), where=total > 0)


def _fold(probs: np.ndarray, alias: np.ndarray) -> np.ndarray:
    """:meth:`SampledNl27.fold` (``probs`` (..., B, A), each column's probability moved onto the
    action it plays) by a plain add per stack and column: faster on many rows."""
    out = np.zeros(probs.shape, dtype=np.float64)
    for s, row in enumerate(alias):
        for c, a in enumerate(row):
            out[..., s, a] += probs[..., s, c]
    return out


def _post_spot(rel: tuple) -> str | None:
    """The ``POST_COLUMNS`` spot of a decision after the draw, by the betting since the draw."""
    bet = ("b", "a")
    if rel == ():
        return "bb"
    if rel == ("k",):
        return "btn_checked"
    if len(rel) == 1 and rel[0][0] in bet:
        return "btn_facing"
    if len(rel) == 2 and rel[0] == "k" and rel[1][0] in bet:
        return "bb_facing"
    return None


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
    probs = _normal(probs)
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
            probs = _normal(_fold(view.tables[table_name][key, col], dec.alias))[v]
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

"""The numbers a sampled nl27 strategy's presentation (:mod:`distcfr.present.nl27_sampled`) shows,
per hand group and spot: :class:`Nl27View` reads the strategy's tables once per file.

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

from distcfr.cards import RANKS, lowball27_rank
from distcfr.games.hand_classes import combinations
from distcfr.games.nl27_abstraction import post_keys, value_buckets, value_label
from distcfr.games.nl27_tables import POST_COLUMNS, action_kind, facing_text, opening_kinds, studied_lines
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
                    folded[:, dec.index] = normal(fold_columns(table[:, dec.index], dec.alias))
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
        bb = normal(self.tables["bb_draw"][:, li, v])  # (C, H+1)
        own1 = self.groups.share * self.reach[node][BIG_BLIND][:, v]  # (C,)
        counts = own1 @ bb  # (H+1,) how often the big blind's range draws each count here
        counts = counts / counts.sum() if counts.sum() > 0 else np.full(h + 1, 1 / (h + 1))
        btn = np.einsum("k,ckj->cj", counts, normal(self.tables["btn_draw"][:, li, :, v]))
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
        s1 = normal(tables["bb_draw"][classes[1], li])  # (D, B, k1)
        s0 = normal(tables["btn_draw"][classes[0], li])  # (D, k1, B, k0)
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
            probs = normal(fold_columns(tables[names[u]][keys[u], col[None, :]], dec.alias))
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


def normal(probs) -> np.ndarray:
    """float64 ``probs`` (..., A) scaled to sum to 1 over the last axis (a file's float16 rows miss
    it by up to about 1e-3); rows of zeros stay zeros."""
    probs = np.asarray(probs, dtype=np.float64)
    total = probs.sum(-1, keepdims=True)
    return np.divide(probs, total, out=np.zeros_like(probs), where=total > 0)


def fold_columns(probs: np.ndarray, alias: np.ndarray) -> np.ndarray:
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

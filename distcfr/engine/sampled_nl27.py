"""Chance-sampled CFR kernel of no-limit deuce-to-seven single draw (``nl27`` with ``draw=rule`` and a
post-draw key, :mod:`distcfr.games.nl27_abstraction`), up to 5 cards from 52.

A deal is both hands and the stub (:class:`~distcfr.engine.lowball_deals.LowballDeals`); every player
action is enumerated per deal. The public tree is the game's: the betting before the draw, then per
line reaching the draw the big blind's draw count k1, the button's k0 (it sees k1), and the betting
after the draw, whose shape depends on the line only (a template evaluated for all (k1, k0) at once).

Tables (the action axis last, the stack axis before it):

* one row per hand class (owned by the class blocks): ``btn_pre`` (C, N0, B, A) and ``bb_pre``
  (C, N1, B, A) over each player's decisions before the draw; ``bb_draw`` (C, L, B, H+1) per line;
  ``btn_draw`` (C, L, H+1, B, H+1) per line and big blind count;
* one row per post-draw key (``keyed = "post"``: shared by every class, summed over all deals):
  ``btn_post`` (K, P0, B, A) and ``bb_post`` (K, P1, B, A), P the player's post-draw decisions over
  all lines and both counts.

A table's action axis is as wide as its widest decision; at a decision with fewer actions, or whose
raise a stack cannot make, the missing actions are copies of one that is there (the first, or the
all-in): a game with duplicated actions is the same game, so CFR runs unchanged on the rows and a
strategy folds the copies' probability onto the original (:meth:`SampledNl27.fold`).

Counterfactual values are the traverser's payoff weighted by the opponent's reach on each deal.
Post-draw sums are added up in 2^-32 BB fixed point (int64): integer sums do not depend on their
order, so blocks summed on any number of workers give the same bits.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.cards import CARD_KEYS, rank_of_keys
from distcfr.engine import nl27_compiled, nl27_response
from distcfr.engine.calibration import NL27_BRACKET_DEAL_COST
from distcfr.engine.lowball_deals import LowballDeals
from distcfr.engine.nl27_response import LocalPost, local_view, piece_deals
from distcfr.engine.row_table import rows_of
from distcfr.engine.sampled_kernel import KEY_SUM_UNIT, ClassTotals, StrategyTable
from distcfr.errors import BadParameter
from distcfr.games.nl27_abstraction import class_value_recall, n_post_keys, post_keys, rule_masks
from distcfr.games.tree import TERMINAL

DEAL_CHUNK = 2048  # deals evaluated together: bounds the rows gathered and the post-draw arrays (deals x 36 counts)
_NAMES = (("btn_pre", "btn_draw", "btn_post"), ("bb_pre", "bb_draw", "bb_post"))


@dataclasses.dataclass
class _Decision:
    """A decision of the public tree: its node, player, table index, children and action folding."""

    node: int
    player: int
    index: int  # its place on the player's node axis (pre: the table's; post: the template's)
    children: list[int]
    alias: np.ndarray  # (B, A) the action each column plays (itself, or the one it copies)


@dataclasses.dataclass
class _Template:
    """The betting after the draw on one line, the same for every pair of draw counts. Nodes in
    breadth-first order (relative ids); ``kind`` per node: "decision", "fold" or "showdown"."""

    nodes: list[int]  # the tree's nodes of the (k1, k0) = (0, 0) copy
    kind: list[str]
    player: list[int]
    children: list[list[int]]
    amount: list[np.ndarray | None]  # (B,) button payoff (fold) or pot share won (showdown)
    decisions: list[_Decision | None]
    counts: list[int]  # per player: its decisions in the template
    base: list[int] = dataclasses.field(default_factory=lambda: [0, 0])  # per player: the first's place / K2


class SampledNl27(LowballDeals):
    """Sampled nl27 of ``game`` (an :class:`~distcfr.games.nl27.Nl27` with ``draw=rule`` and ``post``
    a value or a bucket count)."""

    cycle = True  # a class's training deals meet the other hands in a cycle
    refines = False  # the bracket's refinement and focus rounds are draw27's response's
    batch_per_class = 1  # the default batch's deals per hand class: a deal walks the whole betting tree
    bracket_deal_cost = NL27_BRACKET_DEAL_COST  # training deals a bracket's drawn deal costs
    compiled = True  # the compiled pass (nl27_compiled); False: the numpy reference pass, for tests
    deal_chunk = DEAL_CHUNK

    def __init__(self, game):
        p = game.params
        if p.draw != "rule" or (p.post == "recall" and not class_value_recall(p.suits, p.hand)):
            raise BadParameter("nl27 is solved by sampling with draw=rule and post=value, a number of buckets, or "
                               f"recall on decks of one suit or one card (got draw={p.draw}, post={p.post})")
        super().__init__(p.ranks, p.suits, p.hand)
        self.game = game
        self.stacks = np.asarray(p.stacks, dtype=np.float64)  # (B,)
        self.deck = np.asarray(game.deck)
        self.post = p.post
        self.recall = p.post == "recall"  # keys per (class, final value): perfect recall on these decks
        self.key_post = "value" if self.recall else p.post  # what keys the final hand
        self.n_values = n_post_keys(self.key_post, self.deck, p.hand)
        self.n_keys = self.n_classes * self.n_values if self.recall else self.n_values
        self._compile(game)
        self._flat = nl27_compiled.flatten(self)

    # ---- the public tree -------------------------------------------------------------------------
    def _compile(self, game) -> None:
        tree, h = game.tree, self.hand
        self.k2 = (h + 1) ** 2
        phase = [game.replay(history).phase for history in tree.histories]
        kids = [list(range(int(tree.first_child[n]), int(tree.first_child[n] + tree.n_children[n])))
                for n in range(tree.n_nodes)]
        self.pre_width = max(int(tree.n_children[n]) for n in range(tree.n_nodes) if phase[n] == "pre")
        post_nodes = [n for n in range(tree.n_nodes) if phase[n] == "post" and tree.player[n] != TERMINAL]
        self.post_width = max([int(tree.n_children[n]) for n in post_nodes] or [1])
        # before the draw: decisions, folds and line entries (the big blind's draw), breadth first
        self.pre_order: list[tuple[str, int]] = []
        self.pre_decisions: list[_Decision | None] = []
        counts = [0, 0]
        self.lines: list[int] = []
        self.pre_amount: dict[int, np.ndarray] = {}
        for n in range(tree.n_nodes):
            if phase[n] == "pre" and tree.player[n] != TERMINAL:
                pl = int(tree.player[n])
                self.pre_order.append(("decision", n))
                self.pre_decisions.append(self._decision(game, n, pl, counts[pl], self.pre_width))
                counts[pl] += 1
            elif phase[n] == "fold" and phase[int(tree.parent[n])] == "pre":
                self.pre_order.append(("fold", n))
                self.pre_amount[n] = game.terminal_payoff(tree.histories[n])[1]
            elif phase[n] == "draw" and phase[int(tree.parent[n])] == "pre":
                self.pre_order.append(("line", n))
                self.lines.append(n)
        self.n_pre = tuple(counts)
        self.pre_children = {n: kids[n] for kind, n in self.pre_order if kind == "decision"}
        self.templates = [self._template(game, line, kids) for line in self.lines]
        totals = [0, 0]
        for t in self.templates:  # each line's decisions follow the lines before it on the node axis
            t.base, totals = list(totals), [totals[p] + t.counts[p] for p in (0, 1)]
        self.n_post = tuple(n * self.k2 for n in totals)
        b, a, hh, lines = len(self.stacks), self.pre_width, h + 1, len(self.lines)
        self.strategy_tables = (
            StrategyTable("btn_pre", 0, (self.n_pre[0], b, a), a),
            StrategyTable("btn_draw", 0, (lines, hh, b, hh), hh),
            StrategyTable("btn_post", 0, (self.n_post[0], b, self.post_width), self.post_width, keyed="post"),
            StrategyTable("bb_pre", 1, (self.n_pre[1], b, a), a),
            StrategyTable("bb_draw", 1, (lines, b, hh), hh),
            StrategyTable("bb_post", 1, (self.n_post[1], b, self.post_width), self.post_width, keyed="post"))
        self.line_of = {n: i for i, n in enumerate(self.lines)}

    def _decision(self, game, node: int, player: int, index: int, width: int) -> _Decision:
        tree = game.tree
        n_actions = int(tree.n_children[node])
        legal = game.variant_legal(tree.histories[node])  # (B, n_actions)
        alias = np.zeros((len(self.stacks), width), dtype=np.int64)
        alias[:, :n_actions] = np.where(legal, np.arange(n_actions), n_actions - 1)  # a raise too big: the all-in
        first = int(tree.first_child[node])
        return _Decision(node, player, index, list(range(first, first + n_actions)), alias)

    def _template(self, game, line: int, kids: list) -> _Template:
        tree = game.tree
        button_draw = kids[line][0]  # the big blind stood pat
        root = kids[button_draw][0]  # and the button too
        order, at = [root], 0
        while at < len(order):
            order.extend(kids[order[at]])
            at += 1
        rel = {n: i for i, n in enumerate(order)}
        t = _Template(order, [], [], [], [], [], [0, 0])
        for n in order:
            t.children.append([rel[c] for c in kids[n]])
            if tree.player[n] == TERMINAL:
                kind, amount = game.terminal_payoff(tree.histories[n])
                t.kind.append(kind)
                t.player.append(TERMINAL)
                t.amount.append(np.asarray(amount, dtype=np.float64))
                t.decisions.append(None)
            else:
                pl = int(tree.player[n])
                t.kind.append("decision")
                t.player.append(pl)
                t.amount.append(None)
                t.decisions.append(self._decision(game, n, pl, t.counts[pl], self.post_width))
                t.counts[pl] += 1
        return t

    # ---- best responses (the bracket's) ---------------------------------------------------------
    @staticmethod
    def names(player: int) -> tuple[str, str, str]:
        """The player's tables: before the draw, its draw, after the draw."""
        return _NAMES[player]

    def best_response(self, profile: dict, deals: np.ndarray, player: int) -> None:
        """The player's best response on ``deals`` (grouped by its class) in ``profile``: its class rows
        and post-draw rows of its own per (class, key, pair) (:func:`nl27_response.best_response`)."""
        nl27_response.best_response(self, profile, deals, player)

    def responder_keys(self, sigma: dict, player: int) -> dict:
        """The player's post-draw table as a best response keeps it: rows of its own over ``sigma``'s."""
        name = _NAMES[player][2]
        return {name: LocalPost.over(self, sigma[name])}

    def play_keys(self, table: LocalPost, rows: np.ndarray, back: np.ndarray) -> None:
        """A best response's post-draw rows of classes ``rows`` back to the profile's where ``back`` (G, B)."""
        nl27_response.play_base(self, table, rows, back)

    def response_bytes(self, per_class: int) -> int:
        """Bytes a class's best response holds on ``per_class`` deals."""
        return nl27_response.response_bytes(self, per_class)

    # ---- tables ------------------------------------------------------------------------------------
    @staticmethod
    def fold(probs: np.ndarray, alias: np.ndarray) -> np.ndarray:
        """``probs`` (..., B, A) with each column's probability moved onto the action it plays
        (``alias`` (B, A)): the strategy of the game without copies."""
        out = np.zeros(probs.shape, dtype=np.float64)
        b, a = alias.shape
        for c in range(a):  # A is small: a few vectorised adds
            np.add.at(out, (..., np.arange(b), alias[:, c]), probs[..., c])
        return out

    def to_exact(self, tables: dict[str, np.ndarray]):
        """(layout, probs): these tables as a strategy of the exact game of the same abstraction (its
        (B, infosets, actions) table, copies folded), on decks the exact solver takes."""
        from distcfr.engine.layout import Layout
        from distcfr.games.nl27_cards import Nl27Cards

        layout = Layout(self.game)
        tree = layout.tree
        cards = Nl27Cards.of(self.game)
        hand_class = self.classes.classify(self.deck[cards.hands])[0]  # (n_h,) each exact hand's class
        present, _ = cards.key_space(self.key_post)
        probs = np.zeros((len(self.stacks), layout.n_infosets, layout.max_actions))

        def post_rows(k: int) -> np.ndarray:  # the key row of each exact row after drawing k
            if not self.recall:  # a row per key present
                return present
            ranks = cards.final_ranks_of(f"n{k}")  # (n_h x R_k,) the states, hand-major
            held = np.repeat(hand_class, len(ranks) // len(hand_class))
            return held * self.n_values + post_keys(ranks, self.key_post, self.deck, self.hand)

        def put(node: int, rows: np.ndarray, strategy: np.ndarray, alias: np.ndarray | None) -> None:
            folded = strategy if alias is None else self.fold(strategy, alias)  # (rows, B, A)
            n = int(tree.n_children[node])
            probs[:, int(layout.node_offset[node]) + np.arange(len(rows)), :n] = folded[..., :n].transpose(1, 0, 2)

        for dec in self.pre_decisions:
            put(dec.node, hand_class, tables[("btn_pre", "bb_pre")[dec.player]][hand_class, dec.index], dec.alias)
        for li, line in enumerate(self.lines):
            put(line, hand_class, tables["bb_draw"][hand_class, li], None)
            for k1, button_draw in enumerate(range(int(tree.first_child[line]),
                                                   int(tree.first_child[line] + tree.n_children[line]))):
                put(button_draw, hand_class, tables["btn_draw"][hand_class, li, k1], None)
                for k0 in range(self.hand + 1):
                    self._put_post(put, tables, li, int(tree.first_child[button_draw]) + k0,
                                   k1 * (self.hand + 1) + k0, (post_rows(k0), post_rows(k1)))
        return layout, probs

    def _put_post(self, put, tables, li: int, root: int, pair: int, rows: tuple) -> None:
        """The post-draw decisions of line ``li`` after the draw counts ``pair`` (k1 (H+1) + k0), their
        subtree rooted at ``root``, in the template's breadth-first order; ``rows[u]``: player u's key row
        of each of its exact rows there."""
        tree = self.game.tree
        order, at = [root], 0
        while at < len(order):
            node = order[at]
            order.extend(range(int(tree.first_child[node]), int(tree.first_child[node] + tree.n_children[node])))
            at += 1
        t = self.templates[li]
        for node, dec in zip(order, t.decisions):
            if dec is not None:
                col = (t.base[dec.player] + dec.index) * self.k2 + pair
                at = rows[dec.player]
                put(node, at, tables[("btn_post", "bb_post")[dec.player]][at, col], dec.alias)

    # ---- values ------------------------------------------------------------------------------------
    def deal_values(self, sigma: dict, deals: np.ndarray) -> np.ndarray:
        """(D, B) float64 button payoff of each deal when both players follow ``sigma``."""
        deals = np.asarray(deals)
        if not self.compiled:
            return self._deal_values_reference(sigma, deals)
        out = np.zeros((len(deals), len(self.stacks)))
        step = piece_deals(self) if any(isinstance(sigma[n], LocalPost) for n in ("btn_post", "bb_post")) \
            else DEAL_CHUNK
        for lo in range(0, len(deals), step):
            self.compiled_pass(sigma, self.hands(deals[lo:lo + step]), -1, values=out[lo:lo + step])
        return out

    def class_sums(self, sigma: dict, deals: np.ndarray, player: int, counts: np.ndarray,
                   first: int | None = None, other: tuple | None = None, scratch=None,
                   key_sums: dict | None = None) -> dict[str, ClassTotals]:
        """Batch sums of ``player``'s counterfactual action values and own reach: per hand class for
        its class tables (deals grouped by the player's class, ``counts[i]`` of the i-th class present,
        in class order; each class's deals summed in order in float64, so the same sums whatever else
        shares the call), and per post-draw key for its post table (int64 in 2^-32 units, each deal's
        rounded: add them in any order), added to ``key_sums[table]`` = (q, reach) when given, else
        returned as the rows any deal reached. ``first``, ``other`` and ``scratch`` are taken for the
        contract and not needed here (classes are looked up)."""
        deals = np.asarray(deals)
        counts = np.asarray(counts)
        if not self.compiled:
            return self._class_sums_reference(sigma, deals, player, counts, key_sums=key_sums)
        present = counts[counts > 0]
        group = np.repeat(np.arange(len(present)), present)  # (D,) each deal's place among the classes
        pre, draw, post = (self.strategy_table(name) for name in _NAMES[player])
        sums = {t.name: (np.zeros((len(present), *t.shape)), np.zeros((len(present), *t.shape[:-1])))
                for t in (pre, draw)}
        pieces = [slice(lo, lo + DEAL_CHUNK) for lo in range(0, len(deals), DEAL_CHUNK)]
        hands = None
        if key_sums is not None:
            post_q, post_r = key_sums[post.name]
            slot = np.arange(self.n_keys)
        else:  # rows only for the keys these deals reach
            hands = [self.hands(deals[cut]) for cut in pieces]
            reached = np.unique(np.concatenate([h[2][player].ravel() for h in hands] or [np.zeros(0, np.int64)]))
            slot = np.zeros(self.n_keys, np.int64)
            slot[reached] = np.arange(len(reached))
            post_q = np.zeros((len(reached), *post.shape), dtype=np.int64)
            post_r = np.zeros((len(reached), *post.shape[:-1]), dtype=np.int64)
        mine = np.zeros(len(deals), np.int64)  # (D,) the player's class of each deal
        for i, cut in enumerate(pieces):
            got = hands[i] if hands is not None else self.hands(deals[cut])
            mine[cut] = got[0][player]
            self.compiled_pass(sigma, got, player, group[cut], sums=sums, post_sums=(post_q, post_r, slot))
        rows = mine[np.cumsum(present) - present]  # (G,) the classes, in order
        result = {name: ClassTotals(rows, q.astype(np.float32), r.astype(np.float32)) for name, (q, r) in sums.items()}
        if key_sums is None:  # the rows of every key a deal reached (a scan for the nonzero ones costs more)
            result[post.name] = ClassTotals(reached, post_q, post_r)
        return result

    def compiled_pass(self, sigma: dict, hands: tuple, player: int, group=None, values=None, sums=None,
                      post_sums=None) -> None:
        """:func:`nl27_compiled.cfr_pass` over a chunk of deals (``hands``: :meth:`hands` of them): the
        rows of the classes they hold gathered once (np.unique), the post tables read in place (a best
        response's :class:`~distcfr.engine.nl27_response.LocalPost`: a row per class, key and pair)."""
        (c0, c1), w, keys = hands
        stride = np.array([[self.k2, 1], [self.k2, 1]], dtype=np.int64)  # (decision, pair) column steps
        posts = []
        for u in (0, 1):
            table = sigma[_NAMES[u][2]]
            if isinstance(table, LocalPost):
                rows, g, read = local_view(self, table, (c0, c1)[u], keys[u])
                stride[u] = (1, 0)
            else:
                (rows, read), g = self._key_rows(table, keys[u]), keys[u]
            posts.append((rows, g, read))
        (post0, g0, read0), (post1, g1, read1) = posts
        (u0, at0), (u1, at1) = (np.unique(c, return_inverse=True) for c in (c0, c1))
        f64 = np.float64
        pre0 = np.ascontiguousarray(rows_of(sigma["btn_pre"], u0), dtype=f64)  # (U0, N0, B, A)
        draw0 = np.ascontiguousarray(rows_of(sigma["btn_draw"], u0), dtype=f64)  # (U0, L, H+1, B, H+1)
        pre1 = np.ascontiguousarray(rows_of(sigma["bb_pre"], u1), dtype=f64)  # (U1, N1, B, A)
        draw1 = np.ascontiguousarray(rows_of(sigma["bb_draw"], u1), dtype=f64)  # (U1, L, B, H+1)
        none2, none3, none4, none5 = (np.zeros((1,) * n) for n in (2, 3, 4, 5))
        values = none2 if values is None else values
        q_pre = r_pre = q_draw0 = r_draw0 = q_draw1 = r_draw1 = None
        if player >= 0:
            (q_pre, r_pre), (q_draw, r_draw) = (sums[name] for name in _NAMES[player][:2])
            q_draw0, r_draw0, q_draw1, r_draw1 = (q_draw, r_draw, none4, none3) if player == 0 else \
                (none5, none4, q_draw, r_draw)
            post_q, post_r, slot = post_sums
        else:
            group = np.zeros(len(w), np.int64)
            q_pre, r_pre, q_draw0, r_draw0, q_draw1, r_draw1 = none4, none3, none5, none4, none4, none3
            post_q, post_r, slot = np.zeros((1,) * 4, np.int64), np.zeros((1,) * 3, np.int64), read0
        nl27_compiled.cfr_pass(self._flat.arrays(), player, np.ascontiguousarray(group, dtype=np.int64),
                               at0.astype(np.int64), at1.astype(np.int64), w, g0, g1, pre0, pre1, draw0, draw1,
                               post0, post1, read0, read1, slot, values, q_pre, r_pre, q_draw0, r_draw0, q_draw1,
                               r_draw1, post_q, post_r, stride)

    def _key_rows(self, table, keys: np.ndarray) -> tuple:
        """(rows, read): a post table as the compiled pass reads it, key k's row being rows[read[k]]: an
        array in place, else the keys ``keys`` reach gathered."""
        if isinstance(table, np.ndarray):
            if table.dtype not in (np.float32, np.float64):  # e.g. float16 averages, as files keep them
                table = table.astype(np.float32)
            return table, np.arange(self.n_keys)
        reached = np.unique(keys)
        read = np.zeros(self.n_keys, np.int64)
        read[reached] = np.arange(len(reached))
        return np.ascontiguousarray(table[reached]), read

    def _deal_values_reference(self, sigma: dict, deals: np.ndarray) -> np.ndarray:
        """:meth:`deal_values` by the numpy reference pass."""
        out = np.zeros((len(deals), len(self.stacks)))
        for lo in range(0, len(deals), DEAL_CHUNK):
            out[lo:lo + DEAL_CHUNK] = self._pass_reference(sigma, deals[lo:lo + DEAL_CHUNK], None)["value"]
        return out

    def _class_sums_reference(self, sigma: dict, deals: np.ndarray, player: int, counts: np.ndarray,
                              key_sums: dict | None = None) -> dict[str, ClassTotals]:
        """:meth:`class_sums` by the numpy reference pass (a class cut in pieces of DEAL_CHUNK deals)."""
        deals = np.asarray(deals)
        counts = np.asarray(counts)
        present = counts[counts > 0]
        ends = np.cumsum(present)
        names = [t for t in self.strategy_tables if t.player == player]
        out_q = {t.name: [] for t in names if t.keyed == "class"}
        out_r = {t.name: [] for t in names if t.keyed == "class"}
        post = next(t for t in names if t.keyed == "post")
        if key_sums is not None:
            post_q, post_r = key_sums[post.name]
        else:
            post_q = np.zeros((self.n_keys, *post.shape), dtype=np.int64)
            post_r = np.zeros((self.n_keys, *post.shape[:-1]), dtype=np.int64)
        rows = []
        for lo, hi, starts in _chunks(ends):  # whole classes, or one class in pieces of DEAL_CHUNK
            got = self._pass_reference(sigma, deals[lo:hi], player, post_q, post_r)
            for name in out_q:
                out_q[name].append(np.add.reduceat(got[name][0], starts, axis=0))
                out_r[name].append(np.add.reduceat(got[name][1], starts, axis=0))
            rows.append(got["classes"][starts])
        rows = np.concatenate(rows)
        merged = np.flatnonzero(np.diff(rows) == 0) + 1 if len(rows) else np.zeros(0, np.int64)
        result = {}
        for name in out_q:
            q, r = np.concatenate(out_q[name]), np.concatenate(out_r[name])
            if len(merged):  # a class cut in pieces: its pieces' sums, in order
                keep = np.ones(len(rows), bool)
                keep[merged] = False
                starts = np.flatnonzero(keep)
                q, r = np.add.reduceat(q, starts, axis=0), np.add.reduceat(r, starts, axis=0)
            result[name] = ClassTotals(np.unique(rows) if len(merged) else rows, q.astype(np.float32),
                                       r.astype(np.float32))
        if key_sums is None:
            touched = np.flatnonzero(post_r.reshape(len(post_r), -1).any(1) | post_q.reshape(len(post_q), -1).any(1))
            result[post.name] = ClassTotals(touched, post_q[touched], post_r[touched])
        return result

    # ---- one pass over a chunk of deals -------------------------------------------------------------
    def hands(self, deals: np.ndarray):
        """Per deal: classes (c0, c1), showdown signs W (D, K2) float64 (+1: the button's final hand is
        lower) and post-draw keys g0, g1 (D, K2) int64, K2 indexed by k1 (H+1) + k0."""
        h = self.hand
        c0 = self.classes.classify(deals[:, :h])[0]
        c1 = self.classes.classify(deals[:, h:2 * h])[0]
        kept = []
        for u in (0, 1):
            hand = np.sort(deals[:, u * h:(u + 1) * h], axis=1)
            masks = rule_masks(hand)  # (D, H+1)
            out = (masks[:, :, None] >> np.arange(h)) & 1  # (D, H+1, H) discarded
            kept.append(((1 - out) * CARD_KEYS[hand][:, None, :]).sum(2))  # (D, H+1) key of the kept cards
        prefix = np.zeros((len(deals), 2 * h + 1), dtype=np.int64)
        np.cumsum(CARD_KEYS[deals[:, 2 * h:4 * h]], axis=1, out=prefix[:, 1:])
        k = np.arange(h + 1)
        r1 = rank_of_keys(kept[1] + prefix[:, :h + 1])  # (D, H+1) the big blind draws k1 from the top
        drawn0 = prefix[:, k[:, None] + k[None, :]] - prefix[:, k][:, :, None]  # (D, k1, k0) the next k0
        r0 = rank_of_keys(kept[0][:, None, :] + drawn0)  # (D, k1, k0)
        w = np.sign(r1[:, :, None] - r0).reshape(len(deals), -1).astype(np.float64)
        g1 = post_keys(r1, self.key_post, self.deck, h)  # (D, k1)
        g0 = post_keys(r0, self.key_post, self.deck, h)  # (D, k1, k0)
        if self.recall:  # a row per (class, value)
            g1, g0 = c1[:, None] * self.n_values + g1, c0[:, None, None] * self.n_values + g0
        g1 = np.repeat(g1, h + 1, axis=1).astype(np.int64, copy=False)
        g0 = np.ascontiguousarray(g0.reshape(len(deals), -1), dtype=np.int64)
        return (c0, c1), w, (g0, g1)

    def _pass_reference(self, sigma: dict, deals: np.ndarray, player: int | None, post_q=None, post_r=None) -> dict:
        """CFR values of a chunk of deals: with ``player`` None the button's payoff per deal
        ({"value": (D, B)}); else that player's counterfactual action values and own reach per deal for its
        class tables ({table: (q, reach)}) and, added to ``post_q``/``post_r``, for its post table."""
        hh, k2 = self.hand + 1, self.k2
        d, b = len(deals), len(self.stacks)
        classes, w, keys = self.hands(deals)
        names = (("btn_pre", "btn_draw", "btn_post"), ("bb_pre", "bb_draw", "bb_post"))
        pre = [self._pre_rows(sigma[names[u][0]], classes[u], u) for u in (0, 1)]  # (D, N_u, B, A) folded
        draw1 = np.asarray(rows_of(sigma["bb_draw"], classes[1]), dtype=np.float64)  # (D, L, B, H+1)
        draw0 = np.asarray(rows_of(sigma["btn_draw"], classes[0]), dtype=np.float64)  # (D, L, H+1, B, H+1)
        sign = 1.0 if player in (None, 0) else -1.0
        opp = None if player is None else 1 - player
        # before the draw: reach of both players per node, breadth first
        reach = {0: (np.ones((d, b)), np.ones((d, b)))}
        decisions = {dec.node: dec for dec in self.pre_decisions if dec is not None}
        for kind, n in self.pre_order:
            if kind != "decision":
                continue
            dec = decisions[n]
            probs = pre[dec.player][:, dec.index]  # (D, B, A)
            for a, child in enumerate(dec.children):
                r = list(reach[n])
                r[dec.player] = r[dec.player] * probs[:, :, a]
                reach[child] = tuple(r)
        value = {}
        out = {}
        if player is not None:
            own_draw = names[player][1]
            out[names[player][0]] = (np.zeros((d, self.n_pre[player], b, self.pre_width)),
                                     np.zeros((d, self.n_pre[player], b)))
            out[own_draw] = (np.zeros((d, *self.strategy_table(own_draw).shape)),
                             np.zeros((d, *self.strategy_table(own_draw).shape[:-1])))
        for li, line in enumerate(self.lines):
            r0, r1 = reach[line]
            s1 = draw1[:, li]  # (D, B, k1)
            s0 = draw0[:, li]  # (D, k1, B, k0)
            p1 = r1[:, :, None] * s1  # (D, B, k1) the big blind's reach after its draw
            p0 = r0[:, None, :, None] * s0  # (D, k1, B, k0)
            reach1 = np.repeat(p1.transpose(0, 2, 1), hh, axis=1)  # (D, K2, B)
            reach0 = p0.transpose(0, 1, 3, 2).reshape(d, k2, b)  # (D, K2, B)
            v_root = self._post_line(sigma, li, (reach0, reach1), w, keys, player, sign, post_q, post_r)  # (D, K2, B)
            v_post = v_root.reshape(d, hh, hh, b)  # (D, k1, k0, B)
            v_btn = (v_post * s0.transpose(0, 1, 3, 2)).sum(2)  # (D, k1, B): after the button's draw
            value[line] = (v_btn * s1.transpose(0, 2, 1)).sum(1)  # (D, B)
            if player == 0:
                q, own = out["btn_draw"]
                q[:, li] = p1.transpose(0, 2, 1)[:, :, :, None] * v_post.transpose(0, 1, 3, 2)  # (D, k1, B, k0)
                own[:, li] = r0[:, None, :]
            elif player == 1:
                q, own = out["bb_draw"]
                q[:, li] = r0[:, :, None] * v_btn.transpose(0, 2, 1)  # (D, B, k1)
                own[:, li] = r1
        for kind, n in reversed(self.pre_order):
            if kind == "fold":
                value[n] = np.broadcast_to(sign * self.pre_amount[n], (d, b))
            elif kind == "decision":
                dec = decisions[n]
                probs = pre[dec.player][:, dec.index]
                child_v = np.stack([value[c] for c in dec.children], axis=-1)  # (D, B, n_a)
                value[n] = (probs[:, :, :len(dec.children)] * child_v).sum(-1)
                if dec.player == player:
                    q, own = out[names[player][0]]
                    q[:, dec.index] = reach[n][opp][:, :, None] * np.take_along_axis(
                        child_v, np.broadcast_to(dec.alias, (d, *dec.alias.shape)), axis=-1)
                    own[:, dec.index] = reach[n][player]
        if player is None:
            return {"value": value[0]}
        out["classes"] = classes[player]
        return out

    def _pre_rows(self, table, classes: np.ndarray, player: int) -> np.ndarray:
        """(D, N, B, A) float64 the player's strategy before the draw on each deal, copies folded."""
        rows = np.asarray(rows_of(table, classes), dtype=np.float64)
        out = np.empty_like(rows)
        for dec in self.pre_decisions:
            if dec is not None and dec.player == player:
                out[:, dec.index] = self.fold(rows[:, dec.index], dec.alias)
        return out

    def _post_line(self, sigma, li: int, reach: tuple, w: np.ndarray, keys: tuple, player, sign: float,
                   post_q, post_r) -> np.ndarray:
        """(D, K2, B) the traverser's (button's without one) value at the start of line ``li``'s
        betting after the draw, for every pair of counts; post-draw sums added to ``post_q``/``post_r``."""
        t = self.templates[li]
        d, b = w.shape[0], len(self.stacks)
        k2 = self.k2
        names = ("btn_post", "bb_post")
        node_reach = {0: reach}
        probs = {}
        cols = np.arange(k2)
        for i, kind in enumerate(t.kind):
            if kind != "decision":
                continue
            dec = t.decisions[i]
            u = dec.player
            col = (t.base[u] + dec.index) * k2 + cols  # (K2,) this decision's columns of the post table
            got = np.asarray(sigma[names[u]][keys[u], col[None, :]], dtype=np.float64)  # (D, K2, B, A)
            probs[i] = self.fold(got, dec.alias)
            for a, child in enumerate(t.children[i]):
                r = list(node_reach[i])
                r[u] = r[u] * probs[i][..., a]
                node_reach[child] = tuple(r)
        value = {}
        for i in reversed(range(len(t.kind))):
            kind = t.kind[i]
            if kind == "fold":
                value[i] = np.broadcast_to(sign * t.amount[i], (d, k2, b))
            elif kind == "showdown":
                value[i] = sign * w[:, :, None] * t.amount[i]
            else:
                dec = t.decisions[i]
                child_v = np.stack([value[c] for c in t.children[i]], axis=-1)  # (D, K2, B, n_a)
                value[i] = (probs[i][..., :len(t.children[i])] * child_v).sum(-1)
                if dec.player == player:
                    q = node_reach[i][1 - player][..., None] * np.take_along_axis(
                        child_v, np.broadcast_to(dec.alias, (d, k2, *dec.alias.shape)), axis=-1)
                    col = (t.base[player] + dec.index) * k2 + cols
                    flat = (keys[player] * post_q.shape[1] + col).reshape(-1)
                    np.add.at(post_q.reshape(-1, *post_q.shape[2:]), flat, _fixed(q.reshape(-1, *q.shape[2:])))
                    np.add.at(post_r.reshape(-1, *post_r.shape[2:]), flat,
                              _fixed(node_reach[i][player].reshape(-1, b)))
        return value[0]


def _fixed(x: np.ndarray) -> np.ndarray:
    """``x`` in units of 2^-32, rounded to int64."""
    return np.rint(x / KEY_SUM_UNIT).astype(np.int64)


def _chunks(ends: np.ndarray):
    """(lo, hi, class starts relative to lo) of consecutive pieces of deals grouped by class (``ends``:
    each class's end): whole classes up to DEAL_CHUNK deals together, a larger class alone in pieces of
    DEAL_CHUNK counted from its start. Where a piece ends depends on its own class only."""
    lo, i, n = 0, 0, len(ends)
    while i < n:
        start = lo
        if ends[i] - lo > DEAL_CHUNK:  # a large class: its next piece
            hi = min(lo + DEAL_CHUNK, int(ends[i]))
            yield lo, hi, np.array([0])
            lo = hi
            if hi == ends[i]:
                i += 1
            continue
        j = i
        while j + 1 < n and ends[j + 1] - start <= DEAL_CHUNK:
            j += 1
        hi = int(ends[j])
        starts = np.concatenate([[0], ends[i:j] - start]).astype(np.int64)
        yield start, hi, starts
        lo, i = hi, j + 1

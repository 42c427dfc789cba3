"""The vectorised passes over one shard (a contiguous slice of the deals).

Every array is dense over (tree nodes N, variants B, deals D), node axis first, so a tree
level is one contiguous block and summing children is one matrix product over all variants
and deals at once; Python loops only over tree levels. One CFR pass is:

1. gather each player's current strategy on its own edges, by infoset id;
2. top-down, per level: each player's own reach probability per (node, variant, deal);
3. bottom-up, per level: player 1's expected utility per (node, variant, deal), deal-weighted;
4. scatter-add (np.bincount) into per-infoset tables: counterfactual action values
   Q(I, a) = sum_h pi_-p(h) w(h) u_p(h a) and own reach sums sum_h pi_p(h) w(h).

Regrets are derived from Q by the caller (r = Q - sum_a sigma Q), which is exact because
sigma is constant within an infoset and saves a pass over the (node, deal) arrays.

The best-response pass (for exploitability) runs level by level bottom-up and needs the
global per-infoset sums of every shard between levels, so it is split into steps the
caller drives: ``br_start``, then per level ``br_level_q`` and ``br_level_apply``, then
``br_root``.
"""

from __future__ import annotations

import numpy as np

from distcfr.games.tree import TERMINAL
from distcfr.solve.layout import Layout


class ShardPass:
    """Holds one shard's deal arrays and work buffers; plain numpy, usable with or without Ray."""

    def __init__(self, layout: Layout, start: int, stop: int):
        game, tree = layout.game, layout.tree
        cards, prob = layout.deals
        cards, self.weights = cards[start:stop], prob[start:stop]  # (D, n_cards), (D,)
        self.same_weight = self.weights[0] if len(self.weights) and (self.weights == self.weights[0]).all() else None
        self.layout = layout
        n, d, b, a = tree.n_nodes, len(self.weights), layout.n_variants, layout.max_actions
        n_table = layout.n_infosets * a
        self.shape = (n, b, d)
        self.table_shape = (b, layout.n_infosets, a)

        # infoset id of the acting player per (decision node, deal); -1 at terminals
        iset = np.full((n, d), -1, dtype=np.int64)  # (N, D)
        for node in np.flatnonzero(tree.player != TERMINAL):
            player = int(tree.player[node])
            iset[node] = layout.node_offset[node] + game.private_index(tree.histories[node], player, cards)
        self.iset = iset
        terminals = np.flatnonzero(tree.player == TERMINAL)
        self.uterm = np.zeros(self.shape)  # (N, B, D) player 1's payoff times deal weight
        payoff = game.terminal_utilities([tree.histories[t] for t in terminals], cards)  # (T, B, D)
        self.uterm[terminals] = payoff * self.weights

        # per player: its edges (children of its nodes) and their flat index in the (B, n_is, A)
        # table, used both to gather the strategy and to scatter the action values
        batch = np.arange(b, dtype=np.int64)[None, :, None]
        self.edges, self.edge_parent, self.edge_index, self.dec, self.dec_index = [], [], [], [], []
        for p in (0, 1):
            edges = np.flatnonzero(tree.player[tree.parent] == p)
            edges = edges[edges > 0]
            parents = tree.parent[edges]
            flat = iset[parents] * a + tree.action[edges][:, None]  # (E_p, D)
            dec = np.flatnonzero(tree.player == p)
            self.edges.append(edges)
            self.edge_parent.append(parents)
            self.edge_index.append(flat[:, None, :] + batch * n_table)  # (E_p, B, D)
            self.dec.append(dec)
            self.dec_index.append((iset[dec][:, None, :] + batch * layout.n_infosets).ravel())  # (n_dec_p*B*D,)

        # levels: nodes of depth k are lo:hi; their children (depth k+1) are hi:nxt
        self.levels = []
        self.level_has_terminal, self.level_child_players = [], []  # skip work a level does not need
        starts = tree.level_start
        for k in range(tree.n_levels):
            lo, hi = int(starts[k]), int(starts[k + 1])
            nxt = int(starts[k + 2]) if k + 1 < tree.n_levels else hi
            sum_children = np.zeros((hi - lo, nxt - hi))  # (nodes of level k, nodes of level k+1)
            sum_children[tree.parent[hi:nxt] - lo, np.arange(nxt - hi)] = 1.0
            self.levels.append((lo, hi, nxt, tree.parent[hi:nxt], sum_children))
            self.level_has_terminal.append(bool((tree.player[lo:hi] == TERMINAL).any()))
            self.level_child_players.append(set(tree.player[tree.parent[hi:nxt]].tolist()))
        self._br_levels = None

        self.factor = np.ones((2, *self.shape))  # (2, N, B, D) own edge probability per player, else 1
        self.reach = np.ones((2, *self.shape))  # (2, N, B, D) own reach probability per player
        self.edge_prob = np.ones(self.shape)  # (N, B, D) probability of the edge into each node
        self.utility = np.zeros(self.shape)  # (N, B, D) player 1's deal-weighted expected payoff
        self.versions = [None, None]

    # ---- CFR ----------------------------------------------------------------------------
    def set_strategy(self, sigma: np.ndarray, versions: tuple) -> None:
        """Load the current strategy (B, n_is, A); only players whose version changed are redone."""
        changed = [p for p in (0, 1) if versions[p] is None or versions[p] != self.versions[p]]
        if not changed:
            return
        flat = sigma.ravel()
        for p in changed:
            prob = np.take(flat, self.edge_index[p])  # (E_p, B, D)
            self.factor[p][self.edges[p]] = prob
            self.edge_prob[self.edges[p]] = prob
            self.versions[p] = versions[p]
        if len(changed) == 2:
            self._top_down(self.reach, self.factor)
        else:
            self._top_down(self.reach[changed[0]], self.factor[changed[0]], changed[0])

    def _top_down(self, reach: np.ndarray, factor: np.ndarray, player: int | None = None) -> None:
        """reach[child] = reach[parent] * factor[child], level by level; arrays (..., N, B, D).
        For one ``player``, a level whose edges are all the opponent's is a plain copy."""
        for k, (_, hi, nxt, parents, _) in enumerate(self.levels[:-1]):
            if player is not None and player not in self.level_child_players[k]:
                np.take(reach, parents, axis=-3, out=reach[..., hi:nxt, :, :])
            else:
                np.multiply(np.take(reach, parents, axis=-3), factor[..., hi:nxt, :, :], out=reach[..., hi:nxt, :, :])

    def _bottom_up(self, values: np.ndarray, edge_prob: np.ndarray, terminal: np.ndarray) -> None:
        """values[node] = terminal[node] + sum over children of edge_prob * values[child];
        arrays (N, ...) with the node axis first."""
        last = self.levels[-1]
        values[last[0]:last[1]] = terminal[last[0]:last[1]]
        for k in reversed(range(len(self.levels) - 1)):
            self._sum_children(k, values, edge_prob, terminal)

    def _sum_children(self, k: int, values: np.ndarray, weight: np.ndarray, terminal: np.ndarray) -> None:
        """values[level k] = terminal + sum over children of weight * values[child]; (N, ...) arrays."""
        lo, hi, nxt, _, sum_children = self.levels[k]
        weighted = (weight[hi:nxt] * values[hi:nxt]).reshape(nxt - hi, -1)
        out = values[lo:hi].reshape(hi - lo, -1)
        if self.level_has_terminal[k]:
            np.add(sum_children @ weighted, terminal[lo:hi].reshape(hi - lo, -1), out=out)
        else:
            np.matmul(sum_children, weighted, out=out)

    def cfr_sums(self, sigma: np.ndarray, versions: tuple, players: tuple[int, ...]):
        """Per updated player p: (Q_p (B, n_p, A) counterfactual action values in p's payoff,
        reach_p (B, n_p) own-reach sums), over p's rows of the infoset table."""
        self.set_strategy(sigma, versions)
        self._bottom_up(self.utility, self.edge_prob, self.uterm)
        out = {}
        b, n_is, a = self.table_shape
        for p in players:
            rows = self.layout.player_rows[p]
            value = np.take(self.reach[1 - p], self.edge_parent[p], axis=0)  # (E_p, B, D)
            value *= np.take(self.utility, self.edges[p], axis=0)
            q = np.bincount(self.edge_index[p].ravel(), value.ravel(), minlength=b * n_is * a)
            q = q.reshape(b, n_is, a)[:, rows]
            q = -q if p == 1 else np.ascontiguousarray(q)  # contiguous: Ray ships it without pickling
            own = np.take(self.reach[p], self.dec[p], axis=0)  # (n_dec_p, B, D)
            if self.same_weight is None:
                own *= self.weights
            reach = np.bincount(self.dec_index[p], own.ravel(), minlength=b * n_is).reshape(b, n_is)[:, rows]
            if self.same_weight is not None:  # every deal equally likely: weigh the sums, not the cells
                reach = reach * self.same_weight
            out[p] = (q, np.ascontiguousarray(reach))
        return out

    def profile_value(self, sigma: np.ndarray, versions: tuple) -> np.ndarray:
        """(B,) player 1's deal-weighted expected payoff over this shard under ``sigma``."""
        self.set_strategy(sigma, versions)
        self._bottom_up(self.utility, self.edge_prob, self.uterm)
        return self.utility[0].sum(axis=-1)

    # ---- best response --------------------------------------------------------------------
    def _prepare_br(self) -> None:
        # Both players' best responses run together: values are (N, 2, B, D), player p's in
        # [:, p], so one numpy call per level step serves both.
        layout, tree = self.layout, self.layout.tree
        n, b, d = self.shape
        a = layout.max_actions
        batch = np.arange(b)[None, :, None]
        self._br_levels = []
        for lo, hi, _, _, _ in self.levels:
            depth = int(tree.depth[lo])
            nodes = [lo + np.flatnonzero(tree.player[lo:hi] == p) for p in (0, 1)]
            rows = [layout.rows_at(p, depth) for p in (0, 1)]
            if not len(nodes[0]) + len(nodes[1]):
                self._br_levels.append(None)
                continue
            n_first = rows[0].stop - rows[0].start
            n_rows = n_first + rows[1].stop - rows[1].start
            player = np.repeat([0, 1], [len(nodes[0]), len(nodes[1])])  # (n_dec,)
            nodes = np.concatenate(nodes)  # (n_dec,)
            kids = tree.first_child[nodes][:, None] + np.minimum(
                np.arange(a)[None, :], tree.n_children[nodes][:, None] - 1)  # (n_dec, A); pads repeat
            local = self.iset[nodes] - np.where(player == 0, rows[0].start, rows[1].start - n_first)[:, None]
            row_index = local[:, None, :] + batch * n_rows  # (n_dec, B, D) into (B, n_rows)
            self._br_levels.append({
                "kid_index": (kids * 2 + player[:, None]).ravel(),  # into (2N, B, D) values
                "node_index": nodes * 2 + player,  # into (2N, B, D)
                "row_index": row_index,
                "q_index": (row_index[:, None] * a + np.arange(a)[None, :, None, None]).ravel(),  # (n_dec*A*B*D,)
                "n_rows": n_rows, "n_dec": len(nodes)})
        self._br_terminal = np.stack([self.uterm, -self.uterm], axis=1)  # (N, 2, B, D)

    def br_start(self, sigma: np.ndarray, versions: tuple) -> None:
        """Begin both players' best responses to ``sigma``."""
        if self._br_levels is None:
            self._prepare_br()
        self.set_strategy(sigma, versions)
        n, b, d = self.shape
        self._br_values = np.empty((n, 2, b, d))  # (N, 2, B, D) each player's own payoff
        self._br_opp_factor = self.factor[::-1].transpose(1, 0, 2, 3).copy()  # (N, 2, B, D)
        self._br_opp_reach = self.reach[::-1].transpose(1, 0, 2, 3).copy()  # (N, 2, B, D)
        self._br_kids = None

    def br_level_q(self, level: int):
        """Fill the level's opponent/terminal values; return the sums (B, n_rows, A) of each
        infoset's action values at this level (player 1's rows then player 2's), or None."""
        lo, hi, nxt, _, sum_children = self.levels[level]
        n, b, d = self.shape
        values = self._br_values
        if nxt > hi:
            self._sum_children(level, values, self._br_opp_factor, self._br_terminal)
        else:
            values[lo:hi] = self._br_terminal[lo:hi]
        step = self._br_levels[level]
        if step is None:
            return None
        a = self.layout.max_actions
        kids = np.take(values.reshape(2 * n, b, d), step["kid_index"], axis=0).reshape(step["n_dec"], a, b, d)
        reach = np.take(self._br_opp_reach.reshape(2 * n, b, d), step["node_index"], axis=0)  # (n_dec, B, D)
        self._br_kids = kids
        q = np.bincount(step["q_index"], (kids * reach[:, None]).ravel(), minlength=b * step["n_rows"] * a)
        return q.reshape(b, step["n_rows"], a)

    def br_level_apply(self, level: int, best: np.ndarray) -> None:
        """Give each decision node of the level the value of its infoset's chosen action;
        ``best`` (B, n_rows) is the argmax of the summed ``br_level_q``."""
        step = self._br_levels[level]
        n, b, d = self.shape
        choice = np.take(best.ravel(), step["row_index"])  # (n_dec, B, D)
        chosen = np.take_along_axis(self._br_kids, choice[:, None], axis=1)[:, 0]  # (n_dec, B, D)
        self._br_values.reshape(2 * n, b, d)[step["node_index"]] = chosen

    def br_root(self) -> np.ndarray:
        """(2, B): each player's deal-weighted best-response value over this shard."""
        return self._br_values[0].sum(axis=-1)

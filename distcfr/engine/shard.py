"""One shard (a contiguous slice of the deals) as dense numpy arrays, and the tree-level
operations every kernel is built from.

Every array is dense over (tree nodes N, variants B, deals D), node axis first, so a tree
level is one contiguous block and summing children is one matrix product over all variants
and deals at once; Python loops only over tree levels.
"""

from __future__ import annotations

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.games.tree import TERMINAL


class Shard:
    """One shard's deal arrays, built once from the game: infoset ids, terminal payoffs, the
    strategy-table index of every edge, and the tree levels. Plain numpy; the kernels
    (``CFRKernel``, ``BestResponseKernel``) keep their own strategy-dependent buffers."""

    def __init__(self, layout: Layout, start: int, stop: int):
        game, tree = layout.game, layout.tree
        cards, prob = layout.deals
        cards, self.weights = cards[start:stop], prob[start:stop]  # (D, n_cards), (D,)
        self.same_weight = self.weights[0] if len(self.weights) and (self.weights == self.weights[0]).all() else None
        self.layout = layout
        n, d, b, a = tree.n_nodes, len(self.weights), layout.n_variants, layout.max_actions
        n_table = layout.n_infosets * a
        self.shape = (n, b, d)

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

    def top_down(self, reach: np.ndarray, factor: np.ndarray, player: int | None = None) -> None:
        """reach[child] = reach[parent] * factor[child], level by level; arrays (..., N, B, D).
        For one ``player``, a level whose edges are all the opponent's is a plain copy."""
        for k, (_, hi, nxt, parents, _) in enumerate(self.levels[:-1]):
            if player is not None and player not in self.level_child_players[k]:
                np.take(reach, parents, axis=-3, out=reach[..., hi:nxt, :, :])
            else:
                np.multiply(np.take(reach, parents, axis=-3), factor[..., hi:nxt, :, :], out=reach[..., hi:nxt, :, :])

    def bottom_up(self, values: np.ndarray, edge_prob: np.ndarray, terminal: np.ndarray) -> None:
        """values[node] = terminal[node] + sum over children of edge_prob * values[child];
        arrays (N, ...) with the node axis first."""
        last = self.levels[-1]
        values[last[0]:last[1]] = terminal[last[0]:last[1]]
        for k in reversed(range(len(self.levels) - 1)):
            self.sum_children(k, values, edge_prob, terminal)

    def sum_children(self, k: int, values: np.ndarray, weight: np.ndarray, terminal: np.ndarray) -> None:
        """values[level k] = terminal + sum over children of weight * values[child]; (N, ...) arrays."""
        lo, hi, nxt, _, sum_children = self.levels[k]
        weighted = (weight[hi:nxt] * values[hi:nxt]).reshape(nxt - hi, -1)
        out = values[lo:hi].reshape(hi - lo, -1)
        if self.level_has_terminal[k]:
            np.add(sum_children @ weighted, terminal[lo:hi].reshape(hi - lo, -1), out=out)
        else:
            np.matmul(sum_children, weighted, out=out)


class StrategyReach:
    """What a strategy table implies on one shard: each player's own edge probabilities and
    reach, and the probability of every edge (the kernels' strategy-dependent buffers)."""

    def __init__(self, shard: Shard):
        self.shard = shard
        self.factor = np.ones((2, *shard.shape))  # (2, N, B, D) own edge probability per player, else 1
        self.reach = np.ones((2, *shard.shape))  # (2, N, B, D) own reach probability per player
        self.edge_prob = np.ones(shard.shape)  # (N, B, D) probability of the edge into each node

    def load(self, sigma: np.ndarray, players: tuple[int, ...] = (0, 1)) -> None:
        """Gather ``sigma`` (B, n_is, A) on the edges of ``players`` and redo their reach."""
        shard, flat = self.shard, sigma.ravel()
        for p in players:
            prob = np.take(flat, shard.edge_index[p])  # (E_p, B, D)
            self.factor[p][shard.edges[p]] = prob
            self.edge_prob[shard.edges[p]] = prob
        if len(players) == 2:
            shard.top_down(self.reach, self.factor)
        else:
            shard.top_down(self.reach[players[0]], self.factor[players[0]], players[0])

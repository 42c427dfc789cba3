"""The CFR pass over one shard: counterfactual action values and own-reach sums.

1. gather each player's current strategy on its own edges, by infoset id;
2. top-down, per level: each player's own reach probability per (node, variant, deal);
3. bottom-up, per level: player 1's expected utility per (node, variant, deal), deal-weighted;
4. scatter-add (np.bincount) into per-infoset tables: counterfactual action values
   Q(I, a) = sum_h pi_-p(h) w(h) u_p(h a) and own reach sums sum_h pi_p(h) w(h).

Regrets are derived from Q by the coordinator (r = Q - sum_a sigma Q), which is exact because
sigma is constant within an infoset and saves a pass over the (node, deal) arrays.
"""

from __future__ import annotations

import numpy as np

from distcfr.engine.shard import Shard, StrategyReach


class CFRKernel:
    """Counterfactual sums of one shard. It keeps the reach of the last strategy it saw and
    redoes a player's reach only when that player's rows of the table changed (with
    alternating updates, one player per call)."""

    def __init__(self, shard: Shard):
        self.shard = shard
        self.state = StrategyReach(shard)
        self.utility = np.zeros(shard.shape)  # (N, B, D) player 1's deal-weighted expected payoff
        self.seen: list[np.ndarray | None] = [None, None]  # each player's rows of the last sigma

    def _load(self, sigma: np.ndarray) -> None:
        rows = self.shard.layout.player_rows
        changed = tuple(p for p in (0, 1)
                        if self.seen[p] is None or not np.array_equal(self.seen[p], sigma[:, rows[p]]))
        if changed:
            self.state.load(sigma, changed)
            for p in changed:
                self.seen[p] = sigma[:, rows[p]].copy()

    def cfr_sums(self, sigma: np.ndarray, players: tuple[int, ...]) -> dict:
        """Per updated player p: (Q_p (B, n_p, A) counterfactual action values in p's payoff,
        reach_p (B, n_p) own-reach sums), over p's rows of the infoset table."""
        self._load(sigma)
        shard, state = self.shard, self.state
        layout = shard.layout
        shard.bottom_up(self.utility, state.edge_prob, shard.uterm)
        out = {}
        b, n_is, a = layout.n_variants, layout.n_infosets, layout.max_actions
        for p in players:
            rows = layout.player_rows[p]
            value = np.take(state.reach[1 - p], shard.edge_parent[p], axis=0)  # (E_p, B, D)
            value *= np.take(self.utility, shard.edges[p], axis=0)
            q = np.bincount(shard.edge_index[p].ravel(), value.ravel(), minlength=b * n_is * a)
            q = q.reshape(b, n_is, a)[:, rows]
            q = -q if p == 1 else np.ascontiguousarray(q)  # contiguous: Ray ships it without pickling
            own = np.take(state.reach[p], shard.dec[p], axis=0)  # (n_dec_p, B, D)
            if shard.same_weight is None:
                own *= shard.weights
            reach = np.bincount(shard.dec_index[p], own.ravel(), minlength=b * n_is).reshape(b, n_is)[:, rows]
            if shard.same_weight is not None:  # every deal equally likely: weigh the sums, not the cells
                reach = reach * shard.same_weight
            out[p] = (q, np.ascontiguousarray(reach))
        return out

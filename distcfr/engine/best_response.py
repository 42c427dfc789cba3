"""Exact evaluation over one shard: the value of a strategy profile, and both players' best
responses, which run bottom-up over tree levels.

A best response needs, between levels, the sum over every shard of each infoset's action
values, so it is split into steps the coordinator drives (distcfr.evaluate.evaluator):
``br_start``, then per level ``br_level_q`` (this shard's sums) and ``br_level_apply`` (the
chosen actions), then ``br_root``. Both players' best responses run together: values are
(N, 2, B, D), player p's in [:, p], so one numpy call per level step serves both.
"""

from __future__ import annotations

import numpy as np

from distcfr.engine.shard import Shard, StrategyReach


class BestResponseStateLost(Exception):
    """A best-response step arrived at a shard that holds no best response in progress (its
    worker was replaced): the coordinator redoes the best response from ``br_start``."""


class BestResponseKernel:
    """Evaluation of one shard. Its buffers live only while a best response is in progress."""

    def __init__(self, shard: Shard):
        self.shard = shard
        self._levels = None  # per level: index arrays of its decision nodes (built on first use)
        self._state = None  # the best response in progress: values, opponent factor and reach

    def profile_value(self, sigma: np.ndarray) -> np.ndarray:
        """(B,) player 1's deal-weighted expected payoff over this shard under ``sigma``."""
        shard = self.shard
        reach = StrategyReach(shard)
        reach.load(sigma)
        utility = np.empty(shard.shape)  # (N, B, D)
        shard.bottom_up(utility, reach.edge_prob, shard.uterm)
        return utility[0].sum(axis=-1)

    def _prepare(self) -> None:
        layout, tree, shard = self.shard.layout, self.shard.layout.tree, self.shard
        a = layout.max_actions
        batch = np.arange(layout.n_variants)[None, :, None]
        self._levels = []
        for lo, hi, _, _, _ in shard.levels:
            depth = int(tree.depth[lo])
            nodes = [lo + np.flatnonzero(tree.player[lo:hi] == p) for p in (0, 1)]
            rows = [layout.rows_at(p, depth) for p in (0, 1)]
            if not len(nodes[0]) + len(nodes[1]):
                self._levels.append(None)
                continue
            n_first = rows[0].stop - rows[0].start
            n_rows = n_first + rows[1].stop - rows[1].start
            player = np.repeat([0, 1], [len(nodes[0]), len(nodes[1])])  # (n_dec,)
            nodes = np.concatenate(nodes)  # (n_dec,)
            kids = tree.first_child[nodes][:, None] + np.minimum(
                np.arange(a)[None, :], tree.n_children[nodes][:, None] - 1)  # (n_dec, A); pads repeat
            local = shard.iset[nodes] - np.where(player == 0, rows[0].start, rows[1].start - n_first)[:, None]
            row_index = local[:, None, :] + batch * n_rows  # (n_dec, B, D) into (B, n_rows)
            self._levels.append({
                "kid_index": (kids * 2 + player[:, None]).ravel(),  # into (2N, B, D) values
                "node_index": nodes * 2 + player,  # into (2N, B, D)
                "row_index": row_index,
                "q_index": (row_index[:, None] * a + np.arange(a)[None, :, None, None]).ravel(),  # (n_dec*A*B*D,)
                "n_rows": n_rows, "n_dec": len(nodes)})

    def br_start(self, sigma: np.ndarray) -> None:
        """Begin both players' best responses to ``sigma`` (B, n_is, A)."""
        if self._levels is None:
            self._prepare()
        shard = self.shard
        reach = StrategyReach(shard)
        reach.load(sigma)
        n, b, d = shard.shape
        self._state = {
            "values": np.empty((n, 2, b, d)),  # (N, 2, B, D) each player's own payoff
            "opp_factor": reach.factor[::-1].transpose(1, 0, 2, 3).copy(),  # (N, 2, B, D)
            "opp_reach": reach.reach[::-1].transpose(1, 0, 2, 3).copy(),  # (N, 2, B, D)
            "terminal": np.stack([shard.uterm, -shard.uterm], axis=1),  # (N, 2, B, D)
            "kids": None,
        }

    def _require_state(self) -> dict:
        if self._state is None:
            raise BestResponseStateLost
        return self._state

    def br_level_q(self, level: int) -> np.ndarray | None:
        """Fill the level's opponent/terminal values; return the sums (B, n_rows, A) of each
        infoset's action values at this level (player 1's rows then player 2's), or None."""
        state = self._require_state()
        shard = self.shard
        lo, hi, nxt, _, _ = shard.levels[level]
        n, b, d = shard.shape
        values = state["values"]
        if nxt > hi:
            shard.sum_children(level, values, state["opp_factor"], state["terminal"])
        else:
            values[lo:hi] = state["terminal"][lo:hi]
        step = self._levels[level]
        if step is None:
            return None
        a = shard.layout.max_actions
        kids = np.take(values.reshape(2 * n, b, d), step["kid_index"], axis=0).reshape(step["n_dec"], a, b, d)
        reach = np.take(state["opp_reach"].reshape(2 * n, b, d), step["node_index"], axis=0)  # (n_dec, B, D)
        state["kids"] = kids
        q = np.bincount(step["q_index"], (kids * reach[:, None]).ravel(), minlength=b * step["n_rows"] * a)
        return q.reshape(b, step["n_rows"], a)

    def br_level_apply(self, level: int, best: np.ndarray) -> None:
        """Give each decision node of the level the value of its infoset's chosen action;
        ``best`` (B, n_rows) is the argmax of the summed ``br_level_q``."""
        state = self._require_state()
        step = self._levels[level]
        n, b, d = self.shard.shape
        choice = np.take(best.ravel(), step["row_index"])  # (n_dec, B, D)
        chosen = np.take_along_axis(state["kids"], choice[:, None], axis=1)[:, 0]  # (n_dec, B, D)
        state["values"].reshape(2 * n, b, d)[step["node_index"]] = chosen

    def br_root(self) -> np.ndarray:
        """(2, B): each player's deal-weighted best-response value over this shard; ends the
        best response and frees its buffers."""
        state = self._require_state()
        self._state = None
        return state["values"][0].sum(axis=-1)

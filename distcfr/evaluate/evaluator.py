"""Exact evaluation of strategy profiles over the game's deals: best-response values,
exploitability (OpenSpiel convention), profile value and head-to-head value.

Best responses run bottom-up over tree levels; per level every shard returns the
per-(infoset, action) sums of its deals, and the argmax is taken on their total.
"""

from __future__ import annotations

import numpy as np

from distcfr.engine.best_response import BestResponseStateLost
from distcfr.engine.layout import Layout
from distcfr.engine.shard_set import ShardSet


class Evaluator:
    """Evaluates (n_variants, n_infosets, max_actions) strategy tables of one game."""

    def __init__(self, layout: Layout, shards: ShardSet):
        self.layout = layout
        self.shards = shards

    def best_response_values(self, sigma: np.ndarray, attempts: int = 3) -> np.ndarray:
        """(2, B): what each player gets (in its own payoff) by best-responding to ``sigma``.
        Redone from the start when a worker was replaced midway (up to ``attempts`` times)."""
        for attempt in range(attempts):
            try:
                return self._best_response_values(sigma)
            except BestResponseStateLost:
                if attempt == attempts - 1:
                    raise

    def _best_response_values(self, sigma: np.ndarray) -> np.ndarray:
        layout = self.layout
        self.shards.br_start(sigma)
        for level in reversed(range(layout.tree.n_levels)):
            total = self.shards.br_level_q(level)  # (B, n_rows, A)
            if total is None:
                continue
            depth_rows = [layout.rows_at(p, level) for p in (0, 1)]
            mask = np.concatenate([layout.variant_mask[:, rows] for rows in depth_rows], axis=1)  # (B, n_rows, A)
            self.shards.br_level_apply(level, np.where(mask, total, -np.inf).argmax(axis=-1))
        return self.shards.br_root()

    def exploitability(self, sigma: np.ndarray) -> np.ndarray:
        """(B,) (BR_1 + BR_2) / 2 in chips per game: half the NashConv."""
        return self.best_response_values(sigma).sum(axis=0) / 2

    def value(self, sigma: np.ndarray) -> np.ndarray:
        """(B,) player 1's expected payoff when both players follow ``sigma``."""
        return self.shards.profile_value(sigma)

    def head_to_head(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """(B,) player 1's expected payoff when ``first`` plays seat 1 and ``second`` seat 2."""
        rows = self.layout.player_rows[1]
        profile = first.copy()
        profile[:, rows] = second[:, rows]
        return self.value(profile)

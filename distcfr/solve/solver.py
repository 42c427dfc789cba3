"""The solver: runs iterations of an update rule over a set of shards and keeps the
regret and strategy-sum tables (the coordinator's side of the design)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from distcfr.errors import BadParameter
from distcfr.evaluate.evaluator import Evaluator
from distcfr.games.base import Game
from distcfr.solve.layout import Layout
from distcfr.solve.rules import AUTO, make_rule, regret_matching, update
from distcfr.solve.shard_set import LocalShards, ShardSet
from distcfr.strategy import Strategy

UPDATES = ("alternating", "simultaneous")


class Solver:
    """CFR-family solver of one game. ``algorithm="auto"`` takes the game's
    ``default_algorithm``; dcfr's alpha/beta/gamma default to 1.5, 0, 2. ``shard_set`` is where
    the shards run: in this process by default, or a ShardSet (e.g. on Ray), or a factory
    ``(layout, n_shards) -> ShardSet`` called once the arguments are known to be valid.

    >>> solver = Solver(load_game("kuhn"), algorithm="cfr+")   # doctest: +SKIP
    >>> solver.solve(iterations=1000).exploitability() < 1e-3  # doctest: +SKIP
    """

    def __init__(self, game: Game, algorithm: str = AUTO, updates: str = "alternating",
                 alpha: float | None = None, beta: float | None = None, gamma: float | None = None,
                 shards: int | None = None, shard_set: ShardSet | Callable[[Layout, int], ShardSet] | None = None):
        if updates not in UPDATES:
            raise BadParameter(f"unknown update order {updates!r} (known: {', '.join(UPDATES)})")
        if shards is not None and shards < 1:
            raise BadParameter(f"the shard count must be at least 1, got {shards}")
        self.game = game
        self.layout = layout = Layout(game)
        self.rule = make_rule(game.default_algorithm if algorithm == AUTO else algorithm, alpha, beta, gamma)
        self.updates = updates
        self.n_shards = shards or min(game.default_shards, layout.n_deals)
        if self.n_shards > layout.n_deals:
            raise BadParameter(f"{self.n_shards} shards for only {layout.n_deals} deals")
        if shard_set is None:
            shard_set = LocalShards
        # a factory is called only now, after every argument has been checked
        self.shards = shard_set(layout, self.n_shards) if callable(shard_set) else shard_set
        self.evaluator = Evaluator(layout, self.shards)
        shape = (layout.n_variants, layout.n_infosets, layout.max_actions)
        self.regrets = np.zeros(shape)  # (B, n_is, A) float64
        self.sums = np.zeros(shape)  # (B, n_is, A) float64 strategy sums
        self.prediction = np.zeros(shape) if self.rule.predictive else None
        self.sigma = layout.uniform_strategy()  # (B, n_is, A) current strategy
        self._uniform = self.sigma[0].copy()  # (n_is, A)
        self.iteration = 0
        self._version = 0
        self.versions = [0, 0]

    # ---- iterations ---------------------------------------------------------------------------
    def step(self) -> None:
        """Run one iteration (both players)."""
        t = self.iteration + 1
        discount = self.rule.discount(t)
        if self.updates == "alternating":
            for p in (0, 1):
                self._update(p, self._sums((p,))[p], discount)
        else:
            merged = self._sums((0, 1))
            for p in (0, 1):
                self._update(p, merged[p], discount)
        self.iteration = t

    def _sums(self, players: tuple[int, ...]) -> dict:
        return self.shards.reduce("cfr_sums", self.sigma, tuple(self.versions), players)

    def _update(self, p: int, sums: tuple, discount) -> None:
        q, reach = sums  # (B, n_p, A), (B, n_p)
        rows = self.layout.player_rows[p]
        mask = self.layout.action_mask[rows]
        sigma = self.sigma[:, rows]
        value = (sigma * q) @ np.ones(q.shape[-1])  # (B, n_p): a product beats sum over a short axis
        inst_regret = (q - value[..., None]) * mask
        update(self.rule, discount, self.regrets[:, rows], self.sums[:, rows], inst_regret,
               sigma * reach[..., None])
        basis = self.regrets[:, rows]
        if self.prediction is not None:
            self.prediction[:, rows] = inst_regret
            basis = basis + inst_regret
        self.sigma[:, rows] = regret_matching(basis, self._uniform[rows])
        self._version += 1
        self.versions[p] = self._version

    # ---- state (checkpoints) ------------------------------------------------------------------
    def load_state(self, state: dict) -> None:
        """Continue from a checkpoint's tables (see distcfr.io.checkpoint); the run then goes on
        bitwise as if it had never stopped, whatever the workers."""
        self.regrets[...] = state["regrets"]
        self.sums[...] = state["sums"]
        self.sigma[...] = state["sigma"]
        if self.prediction is not None:
            self.prediction[...] = state["prediction"]
        self.iteration = int(state["iteration"])
        self._version += 1
        self.versions = [self._version, self._version]

    # ---- strategies ------------------------------------------------------------------------------
    def _meta(self) -> dict:
        return {"algorithm": self.rule.name, "iterations": self.iteration, "rule": self.rule.params()}

    def current_strategy(self) -> Strategy:
        return Strategy(self.layout, self.sigma.copy(), self.evaluator, self._meta())

    def average_strategy(self) -> Strategy:
        """The normalised strategy sums (uniform where an infoset was never reached)."""
        total = self.sums.sum(axis=-1, keepdims=True)
        uniform = self.layout.action_mask / self.layout.n_actions[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            probs = np.where(total > 0, self.sums / total, uniform)
        return Strategy(self.layout, probs, self.evaluator, self._meta())

    def solve(self, iterations: int | None = None, target_exploitability: float | None = None,
              eval_every: int = 10, callback: Callable | None = None, evaluate: bool = False) -> Strategy:
        """Iterate until ``iterations`` in total are done or the average strategy's
        exploitability is at most ``target_exploitability`` (checked every ``eval_every``);
        returns the average strategy. ``callback(solver, exploitability_or_None)`` runs after
        each iteration; ``evaluate`` computes the exploitability every ``eval_every``
        iterations even without a target (for progress and plots)."""
        if iterations is None and target_exploitability is None:
            raise BadParameter("give iterations, target_exploitability or both")
        if iterations is not None and iterations < 1:
            raise BadParameter(f"iterations must be positive, got {iterations}")
        if target_exploitability is not None and not target_exploitability > 0:
            raise BadParameter(f"the target exploitability must be positive, got {target_exploitability}")
        if eval_every < 1:
            raise BadParameter(f"eval_every must be positive, got {eval_every}")
        while iterations is None or self.iteration < iterations:
            self.step()
            expl = None
            last = iterations is not None and self.iteration >= iterations
            if (target_exploitability is not None or evaluate) and (self.iteration % eval_every == 0 or last):
                expl = self.average_strategy().exploitability()
            if callback is not None:
                callback(self, expl)
            if expl is not None and target_exploitability is not None and expl <= target_exploitability:
                break
        return self.average_strategy()



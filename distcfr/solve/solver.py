"""The solver: runs iterations of an update rule over a set of shards and keeps the
regret and strategy-sum tables (the coordinator's side of the design)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.engine.memory import check_fits, exact_estimate
from distcfr.engine.rules import AUTO, Rule, make_rule, regret_matching, update
from distcfr.engine.shard_set import LocalShards, ShardSet
from distcfr.errors import BadParameter, WorkersLost
from distcfr.evaluate.evaluator import Evaluator
from distcfr.evaluate.sampled import Bracket
from distcfr.evaluate.strategy import Strategy
from distcfr.games.base import Game
from distcfr.games.registry import load_game
from distcfr.solve.checkpoint import UPDATES, Checkpoint
from distcfr.solve.contract import SolverLifetime
from distcfr.solve.run import RunPlan, run

MAX_REBUILDS = 10  # shard sets rebuilt after lost workers within one pass; past this the run stops

ShardFactory = Callable[[Layout, int], ShardSet]


class Solver(SolverLifetime):
    """CFR-family solver of one game. ``algorithm`` is a registered rule name (``"auto"``: the
    game's ``default_algorithm``) or a Rule; keyword arguments set the rule's parameters (dcfr's
    alpha, beta, gamma). ``shard_set`` is where the shards run: in this process by default, a
    ShardSet (e.g. on Ray), or a factory ``(layout, n_shards) -> ShardSet`` called once the
    arguments are known to be valid. The solver owns its shard set: ``close()`` it, or use the
    solver as a context manager.

    >>> with Solver(load_game("kuhn"), algorithm="cfr+") as solver:   # doctest: +SKIP
    ...     solver.solve(iterations=1000).exploitability() < 1e-3

    Keeps the solver contract (distcfr.solve.contract); distcfr.solve.launch.open_solver builds one
    with its shards where the library's worker policy puts them.
    """

    mode = "exact"
    state_on_workers = False  # the coordinator holds the tables

    def __init__(self, game: Game, algorithm: str | Rule = AUTO, updates: str = "alternating",
                 shards: int | None = None, shard_set: ShardSet | ShardFactory | None = None,
                 **rule_params: float | None):
        if updates not in UPDATES:
            raise BadParameter(f"unknown update order {updates!r} (known: {', '.join(UPDATES)})")
        if shards is not None and shards < 1:
            raise BadParameter(f"the shard count must be at least 1, got {shards}")
        if isinstance(algorithm, Rule):
            if rule_params:
                raise BadParameter("give rule parameters either in the Rule or as keywords, not both")
            self.rule = algorithm
        else:
            self.rule = make_rule(game.default_algorithm if algorithm == AUTO else algorithm, **rule_params)
        problem = game.exact_size_problem()
        if problem:
            raise BadParameter(f"{problem}: it is solved by sampling instead (python -m distcfr.train samples it "
                               "on its own; SampledSolver from Python)")
        if shard_set is None:  # shards in this process (a launch's factory checks its own placement)
            check_fits(exact_estimate(game, shards).this_machine, game.spec)
        self.game = game
        self.layout = layout = Layout(game)
        self.updates = updates
        self.n_shards = shards or min(game.default_shards, layout.n_deals)
        if self.n_shards > layout.n_deals:
            raise BadParameter(f"{self.n_shards} shards for only {layout.n_deals} deals")
        if shard_set is None:
            shard_set = LocalShards
        # a factory is called only now, after every argument has been checked
        self._make_shards = shard_set if callable(shard_set) else None  # to rebuild them after lost workers
        self.recoveries: list[dict] = []  # shards rebuilt after lost workers (as distcfr.solve.run records them)
        self.shards: ShardSet = shard_set(layout, self.n_shards) if callable(shard_set) else shard_set
        self.evaluator = _RebuildingEvaluator(self)
        shape = (layout.n_variants, layout.n_infosets, layout.max_actions)
        self.regrets = np.zeros(shape)  # (B, n_is, A) float64
        self.sums = np.zeros(shape)  # (B, n_is, A) float64 strategy sums
        self.prediction = np.zeros(shape) if self.rule.predictive else None
        self.sigma = layout.uniform_strategy()  # (B, n_is, A) current strategy
        self._uniform = self.sigma.copy()  # (B, n_is, A)
        self.iteration = 0  # complete iterations
        self.phase = 0  # alternating updates: the player who updates next within iteration + 1
        self.waiting_on_shards = False  # True only while a shard call is in flight (safe to abandon)

    @classmethod
    def from_checkpoint(cls, checkpoint: Checkpoint, shard_set: ShardSet | ShardFactory | None = None) -> Solver:
        """A solver that continues ``checkpoint`` bitwise as if it had never stopped, on any
        shard set (any number of workers)."""
        solver = cls(load_game(checkpoint.game), algorithm=checkpoint.rule, updates=checkpoint.updates,
                     shards=checkpoint.shards, shard_set=shard_set)
        solver.regrets[...] = checkpoint.regrets
        solver.sums[...] = checkpoint.sums
        solver.sigma[...] = checkpoint.sigma
        if solver.prediction is not None:
            solver.prediction[...] = checkpoint.prediction
        solver.iteration, solver.phase = checkpoint.iteration, checkpoint.phase
        return solver

    def checkpoint(self) -> Checkpoint:
        """The solver's state (the tables are the solver's own arrays, not copies)."""
        return Checkpoint(self.game.spec, self.rule, self.updates, self.n_shards, self.iteration, self.phase,
                          self.regrets, self.sums, self.sigma, self.prediction)

    # ---- iterations ---------------------------------------------------------------------------
    def step(self) -> None:
        """Run one iteration (both players); after an interrupted step, its remaining half.
        An exception raised by the shard set leaves the tables as they were before that half."""
        t = self.iteration + 1
        discount = self.rule.discount(t)
        if self.updates == "alternating":
            for p in range(self.phase, 2):
                sums = self._cfr_sums((p,))[p]
                self._update(p, sums, discount)
                self.phase = 1 - p
        else:
            merged = self._cfr_sums((0, 1))
            for p in (0, 1):
                self._update(p, merged[p], discount)
        self.iteration = t

    def _cfr_sums(self, players: tuple[int, ...]) -> dict:
        self.waiting_on_shards = True
        try:
            for attempt in range(MAX_REBUILDS + 1):
                began = time.perf_counter()
                try:
                    return self.shards.cfr_sums(self.sigma, players)
                except WorkersLost:  # the tables are here: the same pass again, on the workers there are now
                    if self._make_shards is None or attempt == MAX_REBUILDS:
                        raise
                    waited = time.perf_counter() - began
                    self._rebuild_shards()
                    self.recoveries.append({"lost_at": self.iteration, "resumed_at": self.iteration, "attempts": 1,
                                            "seconds": time.perf_counter() - began - waited, "waited": waited,
                                            "workers": self.launch.on_workers if self.launch else None})
        finally:
            self.waiting_on_shards = False

    def _rebuild_shards(self) -> None:
        """New shards from the solver's factory (after lost workers: on what the cluster can give now)."""
        try:
            self.shards.close()
        except Exception:  # noqa: BLE001 (the lost workers' leftovers: nothing there to keep)
            pass
        self.shards = self._make_shards(self.layout, self.n_shards)

    def _update(self, p: int, sums: tuple, discount) -> None:
        q, reach = sums  # (B, n_p, A), (B, n_p)
        rows = self.layout.player_rows[p]
        mask = self.layout.variant_mask[:, rows]
        sigma = self.sigma[:, rows]
        value = (sigma * q) @ np.ones(q.shape[-1])  # (B, n_p): a product beats sum over a short axis
        inst_regret = (q - value[..., None]) * mask
        update(self.rule, discount, self.regrets[:, rows], self.sums[:, rows], inst_regret,
               sigma * reach[..., None])
        basis = self.regrets[:, rows]
        if self.prediction is not None:
            self.prediction[:, rows] = inst_regret
            basis = basis + inst_regret
        self.sigma[:, rows] = regret_matching(basis, self._uniform[:, rows])

    # ---- strategies ------------------------------------------------------------------------------
    def _meta(self) -> dict:
        return {"algorithm": self.rule.name, "iterations": self.iteration, "rule": self.rule.fields()}

    def current_strategy(self) -> Strategy:
        return Strategy(self.layout, self.sigma.copy(), self.evaluator, self._meta())

    def average_strategy(self) -> Strategy:
        """The normalised strategy sums (uniform where an infoset was never reached)."""
        total = self.sums.sum(axis=-1, keepdims=True)
        uniform = self._uniform
        with np.errstate(invalid="ignore", divide="ignore"):
            probs = np.where(total > 0, self.sums / total, uniform)
        return Strategy(self.layout, probs, self.evaluator, self._meta())

    # ---- evaluation (the contract's, as the sampled solver's) ---------------------------------------------
    @property
    def deals_done(self) -> int:
        """Deals evaluated so far: every deal of the game once per player update."""
        return (2 * self.iteration + (self.phase if self.updates == "alternating" else 0)) * self.layout.n_deals

    def bracket(self, per_class: int | None = None, **settings) -> Bracket:
        """The exact exploitability per stack as a Bracket whose ends meet (no sampling error);
        ``per_class`` and ``settings`` steer sampled brackets only."""
        strategy = self.average_strategy()
        expl, value = strategy.exploitability_per_variant(), strategy.value_per_variant
        zero = np.zeros_like(expl)
        return Bracket(expl, zero, expl, zero, value, zero, per_class=0, rounds=0)

    def values(self, per_class: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(value, standard error) per stack: the first player's exact value, error 0."""
        value = self.average_strategy().value_per_variant
        return value, np.zeros_like(value)

    def release_strategy(self) -> None:
        """Nothing to let go: the exact solver's tables are its state."""

    def solve(self, iterations: int | None = None, target_exploitability: float | None = None,
              eval_every: int = 10, callback: Callable | None = None, evaluate: bool = False) -> Strategy:
        """Iterate until ``iterations`` in total are done or the average strategy's
        exploitability is at most ``target_exploitability`` (checked every ``eval_every``);
        returns the average strategy. ``callback(solver, exploitability_or_None)`` runs after
        each iteration; ``evaluate`` computes the exploitability every ``eval_every``
        iterations even without a target (for progress and plots)."""
        plan = RunPlan(iterations, target_exploitability, eval_every, evaluate)
        run(self, plan, callback, handle_signals=False)
        return self.average_strategy()


class _RebuildingEvaluator:
    """The solver's evaluator (distcfr.evaluate.evaluator) on its current shards: an evaluation whose
    workers are lost is made again on the shards rebuilt from the solver's factory."""

    def __init__(self, solver: Solver):
        self.solver = solver

    def _again(self, method: str, *args):
        for attempt in range(MAX_REBUILDS + 1):
            try:
                return getattr(Evaluator(self.solver.layout, self.solver.shards), method)(*args)
            except WorkersLost:
                if self.solver._make_shards is None or attempt == MAX_REBUILDS:
                    raise
                self.solver._rebuild_shards()

    def best_response_values(self, sigma: np.ndarray) -> np.ndarray:
        return self._again("best_response_values", sigma)

    def exploitability(self, sigma: np.ndarray) -> np.ndarray:
        return self._again("exploitability", sigma)

    def value(self, sigma: np.ndarray) -> np.ndarray:
        return self._again("value", sigma)

    def head_to_head(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        return self._again("head_to_head", first, second)

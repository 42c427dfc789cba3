"""Chance-sampled CFR (Lanctot et al. 2009) for games too large to enumerate (draw27 up to 5
cards from 52). The coordinator holds no tables: the shards own the hand classes' rows
(:mod:`distcfr.engine.class_blocks`). Each half-iteration updates one player (alternating
updates): every class gets its turn of the batch's deals, every player action is still enumerated
per deal, and each shard updates its rows:

    r = Q - sum_a sigma Q;  R += w_t r;  S += v_t reach sigma;  sigma = regret matching on R.

w_t and v_t are the rule's weights in weighted form (lcfr-flat, the default: w_t = min(t, 1000),
v_t = w_t^2; lcfr-square: t and t^2; lcfr-cubic: v_t = t^3; linear CFR: both t; CFR: both 1),
which equals the discounted form up to a scale regret matching ignores, and needs no pass over
untouched rows. How much the average leans on late iterates trades their lower bias against the
noise of fewer effective samples: early on, steeper weights forget the poor first iterates
faster; over long runs, flatter weights average away more of the sampling noise, which is why the
default weights every iteration alike after its first thousand (bench/sampled_quality.py compares
the rules). Rules that floor or discount negative regrets are refused: they throw sampled
information away (Brown & Sandholm, AAAI 2019).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from distcfr.engine.class_blocks import TABLE_DTYPE, LocalClassBlocks, class_visits, regret_matching_rows
from distcfr.engine.deal_schedule import DealSchedule
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.rules import sampled_rule
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS, BracketSettings, bracket_chunks
from distcfr.engine.sampled_kernel import key_tables
from distcfr.errors import BadParameter
from distcfr.evaluate.class_strategy import BRACKET_SEED, ClassStrategy, default_per_class
from distcfr.evaluate.sampled import Bracket, bracket_from_sums
from distcfr.games.registry import load_game
from distcfr.io.sampled_checkpoint import MAX_DEAL_SHARE
from distcfr.solve.checkpoint import SampledCheckpoint
from distcfr.solve.contract import SolverLifetime
from distcfr.solve.run import RunPlan, run

DEFAULT_RULE = "lcfr-flat"
DEFAULT_BATCH = 10_000  # deals per half-iteration at least (bench/sampled_rules.py compares batches)
BATCH_PER_CLASS = 8  # and at least this many per hand class: see default_batch
DEFAULT_SHARDS = 32  # blocks of hand classes: the most workers a run can use
# (button, big blind) deals per deal of the batch when none are given (default_deal_shares): the button's
# average strategy lags the big blind's on the same deals. Where the default batch holds only BATCH_PER_CLASS
# deals per hand class, a half-iteration's cost is mostly per class (regret matching, the rows' trips), the
# button's further deals cost little, and 4:1 settles its values sooner; on smaller decks a deal costs as much
# for either player, and 1:1 gives each the same (bench/sampled_quality.py, docs/SAMPLED.md)
FEW_DEALS_PER_CLASS_SHARES, MANY_DEALS_PER_CLASS_SHARES = (4, 1), (1, 1)


def check_deal_shares(shares) -> tuple[int, int]:
    """``shares`` as (button, big blind) deals per deal of the batch; BadParameter unless two whole
    numbers from 1 to MAX_DEAL_SHARE."""
    try:
        pair = tuple(shares)
    except TypeError:
        pair = ()
    if len(pair) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= MAX_DEAL_SHARE
                                 for x in pair):
        raise BadParameter(f"deal shares must be two whole numbers from 1 to {MAX_DEAL_SHARE} (button, big blind), "
                           f"got {':'.join(map(str, pair)) if len(pair) == 2 else repr(shares)}")
    return pair


def default_deal_shares(kernel) -> tuple[int, int]:
    """(button, big blind) deals per deal of the batch when none are given: 4:1 on decks whose default
    batch holds BATCH_PER_CLASS deals per hand class (DEFAULT_BATCH / BATCH_PER_CLASS = 1,250 classes or
    more: 4 or 5 cards from 52), 1:1 on smaller ones. The deck decides, not the batch."""
    if kernel.batch_per_class != BATCH_PER_CLASS:  # a deal costs more than a class's fixed cost: alike
        return MANY_DEALS_PER_CLASS_SHARES
    many = BATCH_PER_CLASS * kernel.n_classes < DEFAULT_BATCH
    return MANY_DEALS_PER_CLASS_SHARES if many else FEW_DEALS_PER_CLASS_SHARES


def default_batch(kernel) -> int:
    """Deals per half-iteration when none is given: the kernel's ``batch_per_class`` per hand class
    (draw27: several, so that the fixed cost of a half-iteration per class, regret matching and the
    strategy's trip, stays small; nl27: one, its deals cost far more than that)."""
    return max(DEFAULT_BATCH, kernel.batch_per_class * kernel.n_classes)


class SampledSolver(SolverLifetime):
    """Chance-sampled solver of a game with a sampled kernel (distcfr.engine.kernels). ``shards``
    is the number of class blocks the hand classes are cut into; ``shard_set`` is a factory
    ``(spec, n_blocks, seed, schedule) -> class-block set`` (in-process by default; schedule: the deals of
    the button's and the big blind's half-iterations). ``deal_shares`` (button, big blind): each
    player's half draws its share times ``batch`` deals (default: :func:`default_deal_shares`). Keeps the solver
    contract (distcfr.solve.contract)."""

    mode = "sampled"
    state_on_workers = True  # each class block's rows live on its worker

    def __init__(self, game, algorithm: str = "auto", batch: int | None = None, seed: int = 0,
                 shards: int | None = None, shard_set: Callable | None = None, table_dtype=TABLE_DTYPE,
                 deal_shares: tuple[int, int] | None = None):
        self.rule = sampled_rule(DEFAULT_RULE if algorithm in ("auto", None) else algorithm)
        self.kernel = sampled_kernel(game)
        batch = default_batch(self.kernel) if batch is None else batch
        if batch < 1 or (shards is not None and not 1 <= shards <= self.kernel.n_classes):
            raise BadParameter(f"need a batch of at least 1 deal and 1 to {self.kernel.n_classes} class blocks "
                               f"(one per hand class at most), got {batch} and {shards}")
        if not 0 <= seed < 2**63:
            raise BadParameter(f"the seed must be between 0 and 2^63 - 1, got {seed}")
        self.game, self.batch, self.seed = game, batch, seed
        self.deal_shares = check_deal_shares(default_deal_shares(self.kernel) if deal_shares is None else deal_shares)
        self.schedule = DealSchedule.from_batch(batch, self.deal_shares)  # deals of each player's half
        self.n_shards = shards or min(self.kernel.n_classes, DEFAULT_SHARDS)
        self.updates = "alternating"
        if shard_set is None:
            shard_set = lambda spec, n, s, schedule: LocalClassBlocks(spec, n, s, schedule, table_dtype)  # noqa: E731
        self._make_shards = shard_set
        self.shards = shard_set(game.spec, self.n_shards, seed, self.schedule)
        self.iteration, self.phase = 0, 0
        self.in_flight: tuple[int, int] | None = None  # (player, iteration) of a half-iteration cut short
        self.step_rate: float | None = None  # seconds per deal of the latest whole step (None before one)

    @property
    def waiting_on_shards(self) -> bool:
        """Whether a signal may stop the run right now without losing a half-written table."""
        return self.shards.interruptible

    @property
    def deals_done(self) -> int:
        return self.iteration * self.schedule.per_iteration + self.phase * self.schedule.button

    def visits(self, player: int) -> np.ndarray:
        """(C,) sampled deals that have updated each hand class of ``player``."""
        halves = self.iteration + (1 if player < self.phase else 0)  # the player's half-iterations done
        return class_visits(self.schedule.of(player), self.kernel.n_classes, halves)

    # ---- iterations -------------------------------------------------------------------------------
    def step(self) -> None:
        """One iteration: the button's half, then the big blind's (or what is left of it)."""
        self._settle()
        began, whole = time.perf_counter(), self.phase == 0
        t = self.iteration + 1
        for player in range(self.phase, 2):
            self.in_flight = (player, t)
            self.shards.half_iteration(player, t, self.rule.fields())
            self._advance()
        if whole:  # a resumed half says less: its deals are one player's
            self.step_rate = (time.perf_counter() - began) / self.schedule.per_iteration

    def _advance(self) -> None:
        player, t = self.in_flight
        self.in_flight = None
        self.phase = 1 - player
        if player == 1:
            self.iteration = t

    def _settle(self) -> None:
        """Finish a half-iteration a signal cut short, so that the tables and the counters agree."""
        if self.in_flight is not None:
            self.shards.settle()
            self._advance()

    def solve(self, iterations: int, callback: Callable | None = None) -> ClassStrategy:
        run(self, RunPlan(iterations), callback, handle_signals=False)
        return self.average_strategy()

    def average_strategy(self) -> ClassStrategy:
        self._settle()
        return ClassStrategy(self.game, self.shards.average(),
                             {"algorithm": self.rule.name, "iterations": self.iteration, "deals": self.deals_done,
                              "seed": self.seed, "batch": self.batch})

    def bracket(self, per_class: int | None = None, seed: int = BRACKET_SEED,
                rounds: int = REFINE_ROUNDS, focus: int = FOCUS_SHARE) -> Bracket:
        """The exploitability bracket of the average strategy (as :meth:`ClassStrategy.bracket
        <distcfr.evaluate.class_strategy.ClassStrategy.bracket>` given :meth:`latest_strategy`, the same
        bits), evaluated by the shards where the rows lie: no table is gathered."""
        self._settle()
        per_class = per_class or default_per_class(self.kernel)
        settings = BracketSettings(seed, per_class, rounds, focus)
        sums = self.shards.bracket_sums(settings, bracket_chunks(self.kernel, per_class))
        # a latest iterate's key rows are not published with its class rows: scored only without key tables
        return bracket_from_sums(sums, per_class, rounds, latest=not key_tables(self.kernel))

    def values(self, per_class: int, seed: int = BRACKET_SEED) -> tuple[np.ndarray, np.ndarray]:
        """(value, standard error) per stack, BB per hand: the button's value under the average
        strategy on ``per_class`` fixed deals per hand class (as :meth:`ClassStrategy.values
        <distcfr.evaluate.class_strategy.ClassStrategy.values>`, the same bits), evaluated where the
        rows lie. Readings of one run share their deals, so they show how far its values moved."""
        self._settle()
        total = self.shards.value_sums(seed, per_class, bracket_chunks(self.kernel, per_class))
        return total[0], np.sqrt(total[1])

    def release_strategy(self) -> None:
        """Let the current strategy go (a run's end: its memory goes to the final bracket); a
        further iteration publishes it again."""
        self._settle()
        self.shards.release_strategy()

    def latest_strategy(self) -> dict[str, np.ndarray]:
        """{table: (C, ...) float16} the latest iterate as the bracket scores it (regret matching on the
        regrets, rounded as published); gathers every table (small games: tests and benches)."""
        self._settle()
        return {name: regret_matching_rows(table, np.float16) for name, table in self.shards.tables()[0].items()}

    def current_strategy(self) -> dict[str, np.ndarray]:
        """{table: (C, ...) float32} the strategy of the latest iteration."""
        self._settle()
        return self.shards.current()

    # ---- state --------------------------------------------------------------------------------------------
    def checkpoint(self) -> SampledCheckpoint:
        """Where the run stands; ``.save(path)`` streams the tables from the shards to a file."""
        self._settle()
        return SampledCheckpoint(self.game.spec, self.rule, self.seed, self.batch, self.n_shards, self.iteration,
                                 self.phase, source=self.shards, deal_shares=self.deal_shares)

    def recover(self, checkpoint: SampledCheckpoint | None) -> None:
        """Go on after lost workers: class blocks built anew on the workers there are now, their rows
        from ``checkpoint`` (one of this run's own: the same stream key), or empty when the run had
        not saved one yet. The run continues bitwise as it would have from that checkpoint."""
        try:
            self.shards.close()
        except Exception:  # noqa: BLE001 (the lost workers' leftovers: nothing there to keep)
            pass
        self.shards = self._make_shards(self.game.spec, self.n_shards, self.seed, self.schedule)
        self.in_flight = None
        if checkpoint is None:
            self.iteration, self.phase = 0, 0
            return
        self.shards.write_rows(checkpoint.chunks(self.shards.tables_dtype))
        self.iteration, self.phase = checkpoint.iteration, checkpoint.phase

    @classmethod
    def from_checkpoint(cls, checkpoint: SampledCheckpoint, shard_set: Callable | None = None) -> SampledSolver:
        """Continue ``checkpoint`` bitwise as if it had never stopped, on any shard set (its
        tables stream from its file, or its solver's shards, to the new shards)."""
        solver = cls(load_game(checkpoint.game), checkpoint.rule.name, checkpoint.batch, checkpoint.seed,
                     checkpoint.shards, shard_set, deal_shares=checkpoint.deal_shares)
        try:
            solver.shards.write_rows(checkpoint.chunks(solver.shards.tables_dtype))
        except BaseException:
            solver.close()
            raise
        solver.iteration, solver.phase = checkpoint.iteration, checkpoint.phase
        return solver

"""Chance-sampled CFR (Lanctot et al. 2009) for games too large to enumerate (draw27 up to 5
cards from 52). The coordinator holds no tables: the shards own the hand classes' rows
(:mod:`distcfr.engine.sampled_shards`). Each half-iteration updates one player (alternating
updates): every class gets its turn of the batch's deals, every player action is still enumerated
per deal, and each shard updates its rows:

    r = Q - sum_a sigma Q;  R += w_t r;  S += w_t reach sigma;  sigma = regret matching on R.

w_t is the rule's weight in weighted form (linear CFR: t, CFR: 1), which equals the discounted
form up to a scale regret matching ignores, and needs no pass over untouched rows. Rules that
floor or discount negative regrets are refused: they throw sampled information away (Brown &
Sandholm, AAAI 2019).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from distcfr.engine.sampled_bracket import bracket_chunks
from distcfr.engine.sampled_shards import TABLE_DTYPE, LocalSampledShards, class_visits
from distcfr.errors import BadFile, BadParameter, DistcfrError
from distcfr.evaluate.class_strategy import BRACKET_SEED, ClassStrategy, default_per_class
from distcfr.evaluate.sampled import Bracket, bracket_from_sums
from distcfr.games.registry import load_game
from distcfr.io.sampled_checkpoint import CHUNK_BYTES, SampledCheckpointFile, TableSpec, write_sampled_checkpoint
from distcfr.io.sampled_checkpoint import chunks as table_chunks
from distcfr.solve.rules import Rule, make_rule, rule_from_fields
from distcfr.solve.run import RunPlan, run

DEFAULT_RULE = "lcfr"
DEFAULT_BATCH = 10_000  # deals per half-iteration at least; 100 to 10,000 gave the same exploitability per deal
BATCH_PER_CLASS = 8  # and at least this many per hand class: see default_batch
DEFAULT_SHARDS = 32  # blocks of hand classes: the most workers a run can use


def default_batch(kernel) -> int:
    """Deals per half-iteration when none is given: several per hand class, so that the fixed
    cost of a half-iteration per class (regret matching, the strategy's trip) stays small."""
    return max(DEFAULT_BATCH, BATCH_PER_CLASS * kernel.n_classes)


def sampled_rule(name: str) -> Rule:
    rule = make_rule(name)
    if rule.kind.sampled_weight is None:
        raise BadParameter(f"{rule.name} is not used with sampling: {rule.kind.not_sampled_because}; "
                           f"use lcfr (the default) or cfr")
    return rule


class SampledSolver:
    """Chance-sampled solver of a game with ``sampled()`` (draw27). ``shard_set`` is a factory
    ``(spec, n_shards, seed, batch) -> sampled shard set`` (in-process by default)."""

    def __init__(self, game, algorithm: str = "auto", batch: int | None = None, seed: int = 0,
                 shards: int | None = None, shard_set: Callable | None = None, table_dtype=TABLE_DTYPE):
        self.rule = sampled_rule(DEFAULT_RULE if algorithm in ("auto", None) else algorithm)
        self.kernel = game.sampled()
        batch = default_batch(self.kernel) if batch is None else batch
        if batch < 1 or (shards is not None and not 1 <= shards <= self.kernel.n_classes):
            raise BadParameter(f"need a batch of at least 1 deal and 1 to {self.kernel.n_classes} shards "
                               f"(one per hand class at most), got {batch} and {shards}")
        if not 0 <= seed < 2**63:
            raise BadParameter(f"the seed must be between 0 and 2^63 - 1, got {seed}")
        self.game, self.batch, self.seed = game, batch, seed
        self.n_shards = shards or min(self.kernel.n_classes, DEFAULT_SHARDS)
        self.updates = "alternating"
        if shard_set is None:
            self.shards = LocalSampledShards(game.spec, self.n_shards, seed, batch, table_dtype)
        else:
            self.shards = shard_set(game.spec, self.n_shards, seed, batch)
        self.iteration, self.phase = 0, 0
        self.in_flight: tuple[int, int] | None = None  # (player, iteration) of a half-iteration cut short

    @property
    def waiting_on_shards(self) -> bool:
        """Whether a signal may stop the run right now without losing a half-written table."""
        return self.shards.interruptible

    @property
    def deals_done(self) -> int:
        return (2 * self.iteration + self.phase) * self.batch

    def visits(self, player: int) -> np.ndarray:
        """(C,) sampled deals that have updated each hand class of ``player``."""
        halves = self.iteration + (1 if player < self.phase else 0)
        return class_visits(self.batch, self.kernel.n_classes, halves)

    # ---- iterations -------------------------------------------------------------------------------
    def step(self) -> None:
        """One iteration: the button's half, then the big blind's (or what is left of it)."""
        self._settle()
        t = self.iteration + 1
        weight = self.rule.kind.sampled_weight(t)
        for player in range(self.phase, 2):
            self.in_flight = (player, t)
            self.shards.half_iteration(player, t, weight)
            self._advance()

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

    def bracket(self, per_class: int | None = None, seed: int = BRACKET_SEED) -> Bracket:
        """The exploitability bracket of the average strategy (as :meth:`ClassStrategy.bracket
        <distcfr.evaluate.class_strategy.ClassStrategy.bracket>`, the same bits), evaluated by the
        shards where the rows lie: no table is gathered."""
        self._settle()
        per_class = per_class or default_per_class(self.kernel)
        sums = self.shards.bracket_sums(seed, per_class, bracket_chunks(self.kernel, per_class))
        return bracket_from_sums(sums, per_class)

    def release_strategy(self) -> None:
        """Let the current strategy go (a run's end: its memory goes to the final bracket); a
        further iteration publishes it again."""
        self._settle()
        self.shards.release_strategy()

    def current_strategy(self) -> dict[str, np.ndarray]:
        """{block: (C, ...) float32} the strategy of the latest iteration."""
        self._settle()
        return self.shards.current()

    # ---- lifetime and state -----------------------------------------------------------------------------
    def describe(self) -> dict:
        return self.shards.describe()

    def close(self) -> None:
        self.shards.close()

    def __enter__(self) -> SampledSolver:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def checkpoint(self) -> SampledCheckpoint:
        """Where the run stands; ``.save(path)`` streams the tables from the shards to a file."""
        self._settle()
        return SampledCheckpoint(self.game.spec, self.rule, self.seed, self.batch, self.n_shards, self.iteration,
                                 self.phase, source=self.shards)

    @classmethod
    def from_checkpoint(cls, checkpoint: SampledCheckpoint, shard_set: Callable | None = None) -> SampledSolver:
        """Continue ``checkpoint`` bitwise as if it had never stopped, on any shard set (its
        tables stream from its file, or its solver's shards, to the new shards)."""
        solver = cls(load_game(checkpoint.game), checkpoint.rule.name, checkpoint.batch, checkpoint.seed,
                     checkpoint.shards, shard_set)
        try:
            solver.shards.write_rows(checkpoint.chunks(solver.shards.tables_dtype))
        except BaseException:
            solver.close()
            raise
        solver.iteration, solver.phase = checkpoint.iteration, checkpoint.phase
        return solver


def table_specs(kernel) -> list[TableSpec]:
    """The tables of a sampled checkpoint, in file order: every block's regrets, then its sums."""
    return ([TableSpec(f"regrets.{b.name}", (kernel.n_classes, *b.shape), "finite") for b in kernel.blocks]
            + [TableSpec(f"sums.{b.name}", (kernel.n_classes, *b.shape), "nonnegative") for b in kernel.blocks])


@dataclass(frozen=True, eq=False)
class SampledCheckpoint:
    """A sampled solve's state: the stream key (seed, batch, shards), where it stands, and where
    its regret and sum tables are: a running solver's shards (``source``) or a checked file
    (``path``). The current strategy is regret matching on the regrets."""

    game: str
    rule: Rule
    seed: int
    batch: int
    shards: int
    iteration: int
    phase: int
    source: object = None  # a sampled shard set
    path: object = None
    mode = "sampled"
    updates = "alternating"

    def save(self, path) -> None:
        """Write the checkpoint to ``path`` atomically, a chunk of rows at a time (the file
        format: distcfr.io.sampled_checkpoint)."""
        assert self.source is not None, "a checkpoint read from a file is saved by the solver it resumes"
        fields = {"game": self.game, "rule": self.rule.fields(), "seed": self.seed, "batch": self.batch,
                  "shards": self.shards, "iteration": self.iteration, "phase": self.phase}
        kernel = load_game(self.game).sampled()
        write_sampled_checkpoint(path, fields, table_specs(kernel), np.dtype(self.source.tables_dtype).str,
                                 self.source.read_rows)

    def chunks(self, dtype) -> Iterator[tuple[str, int, np.ndarray]]:
        """(table, first row, rows) of every table, as ``dtype``."""
        if self.source is not None:  # straight from a running solver's shards, a file's chunk at a time
            requests = [(t.name, lo, hi) for t in table_specs(load_game(self.game).sampled())
                        for lo, hi in table_chunks(t, np.dtype(dtype).str, CHUNK_BYTES)]
            for (name, lo, _), rows in zip(requests, self.source.read_rows(requests)):
                yield name, lo, rows.astype(dtype, copy=False)
            return
        with SampledCheckpointFile(self.path) as file:
            self._read_fields(file)
            for name, lo, rows in file.tables():
                yield name, lo, rows.astype(dtype, copy=False)

    @classmethod
    def load(cls, path) -> SampledCheckpoint:
        """Read and check a sampled checkpoint's fields and length (its tables are checked chunk
        by chunk as they stream into a solver: :meth:`chunks`). BadFile (one line) for anything
        that is not a checkpoint of a real sampled run."""
        with SampledCheckpointFile(path) as file:
            return cls._read_fields(file)

    @classmethod
    def _read_fields(cls, file: SampledCheckpointFile) -> SampledCheckpoint:
        path, spec = file.path, file.header["game"]
        try:
            game = load_game(spec)
            kernel = game.sampled()
        except (DistcfrError, AttributeError) as err:
            raise BadFile(f"{path}: its game {spec[:200]!r} cannot be sampled: {err}") from None
        fields = file.read_fields({"game": game.spec}, table_specs(kernel))
        try:
            rule = sampled_rule(rule_from_fields(fields["rule"], complete=True).name)
        except DistcfrError as err:
            raise BadFile(f"{path}: its rule cannot be used: {err}") from None
        if not 1 <= fields["shards"] <= kernel.n_classes:
            raise BadFile(f"{path}: {fields['shards']} shards for {kernel.n_classes} hand classes")
        ints = [fields[k] for k in ("seed", "batch", "shards", "iteration", "phase")]
        return cls(game.spec, rule, *ints, path=path)

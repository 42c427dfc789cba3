"""Chance-sampled CFR (Lanctot et al. 2009) for games too large to enumerate (draw27 up to 5
cards from 52). Each half-iteration, every shard draws its deals from its own counter-based
stream, every player action is still enumerated per deal, and the coordinator updates only the
hand classes the batch touched:

1. sums = tree sum over shards of the batch's counterfactual values Q and own reach, per class;
2. r = Q - sum_a sigma Q;  R[touched] += w_t r;  S[touched] += w_t reach sigma;
3. sigma[touched] = regret matching on R[touched].

w_t is the rule's weight in weighted form (linear CFR: t, CFR: 1), which equals the discounted
form up to a scale regret matching ignores, and needs no pass over untouched rows. Rules that
floor or discount negative regrets are refused: they throw sampled information away (Brown &
Sandholm, AAAI 2019).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from distcfr.engine.sampled_shards import LocalSampledShards
from distcfr.errors import BadFile, BadParameter, DistcfrError
from distcfr.evaluate.class_strategy import ClassStrategy
from distcfr.games.registry import load_game
from distcfr.io.checkpoint import open_checkpoint_file, sampled_checkpoint_schema, write_checkpoint_file
from distcfr.solve.rules import Rule, make_rule, rule_from_fields
from distcfr.solve.run import RunPlan, run

DEFAULT_RULE = "lcfr"
DEFAULT_BATCH = 10_000  # deals per half-iteration at least; 100 to 10,000 gave the same exploitability per deal
BATCH_PER_CLASS = 8  # and at least this many per hand class: see default_batch
DENSE_SHARE = 0.5  # a batch touching more than this share of the classes updates every row (same bits)
TABLE_DTYPE = np.float32  # regrets and sums: 245 MB per stack for 5 cards from 52


def regret_matching(regrets: np.ndarray) -> np.ndarray:
    """Strategy proportional to positive regret over the last axis; uniform where none is positive."""
    positive = np.maximum(regrets, 0)
    total = positive.sum(-1, keepdims=True)
    return np.divide(positive, total, out=np.full_like(positive, 1 / regrets.shape[-1]), where=total > 0)


def default_batch(kernel) -> int:
    """Deals per half-iteration when none is given. The coordinator's update costs per hand class a
    batch touches, the workers' part per deal: a batch of several deals per class keeps the update a
    small share of the work (bench/sampled_scaling.py: 2 workers 1.65-1.78x one on 5 cards from 52)."""
    return max(DEFAULT_BATCH, BATCH_PER_CLASS * kernel.n_classes)


def _scaled(rows: np.ndarray, fixed: np.ndarray, n: int | None, bits: int, dtype) -> np.ndarray:
    """The fixed-point sums ``fixed`` (times 2**-bits) as ``dtype``; with ``n``, as (n, ...) rows, zero
    where ``rows`` has none."""
    if n is None or len(rows) == n:
        out = fixed.astype(dtype)
    else:
        out = np.zeros((n, *fixed.shape[1:]), dtype=dtype)
        out[rows] = fixed
    out *= dtype.type(2.0**-bits)
    return out


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
        if batch < 1 or (shards is not None and not 1 <= shards <= batch):
            raise BadParameter(f"need a batch of at least 1 deal and 1 to batch shards, got {batch} and {shards}")
        if not 0 <= seed < 2**63:
            raise BadParameter(f"the seed must be between 0 and 2^63 - 1, got {seed}")
        self.game, self.batch, self.seed = game, batch, seed
        self.n_shards = shards or min(batch, 32)
        self.updates = "alternating"
        factory = shard_set or LocalSampledShards
        self.shards = factory(game.spec, self.n_shards, seed, batch)
        c = self.kernel.n_classes
        self.regrets = {b.name: np.zeros((c, *b.shape), table_dtype) for b in self.kernel.blocks}
        self.sums = {b.name: np.zeros((c, *b.shape), table_dtype) for b in self.kernel.blocks}
        self.sigma = {name: regret_matching(r).astype(np.float32) for name, r in self.regrets.items()}
        self.iteration, self.phase = 0, 0
        self.waiting_on_shards = False

    @property
    def deals_done(self) -> int:
        return (2 * self.iteration + self.phase) * self.batch

    def table_bytes(self) -> int:
        return sum(a.nbytes for tables in (self.regrets, self.sums, self.sigma) for a in tables.values())

    # ---- iterations -------------------------------------------------------------------------------
    def step(self) -> None:
        """One iteration: the button's half, then the big blind's (or what is left of it)."""
        t = self.iteration + 1
        weight = self.rule.kind.sampled_weight(t)
        for player in range(self.phase, 2):
            self.waiting_on_shards = True
            try:
                sums = self.shards.cfr_sums(self.sigma, player, t)
            finally:
                self.waiting_on_shards = False
            for name, got in sums.items():
                self._update(name, got, weight)
            self.phase = 1 - player
        self.iteration = t

    def _update(self, name: str, got, weight: float) -> None:
        rows, n = got.rows, self.kernel.n_classes
        dtype = self.regrets[name].dtype  # the arithmetic is in the tables' precision
        dense = len(rows) > DENSE_SHARE * n  # most classes touched: update every row in place
        q, reach = (_scaled(rows, fixed, n if dense else None, got.bits, dtype)
                    for fixed in (got.fixed_q, got.fixed_reach))
        if dense:  # (an untouched row's sums are 0: adding them changes nothing)
            rows = slice(None)
        weight = dtype.type(weight)
        sigma = self.sigma[name][rows].astype(dtype, copy=False)  # (n, ..., A)
        regrets = self.regrets[name][rows]  # a view when dense, else a gathered copy written back below
        sums = self.sums[name][rows]
        sums += (weight * reach)[..., None] * sigma
        value = (sigma * q).sum(-1, keepdims=True)
        q -= value  # the regret of each action, in place
        q *= weight
        regrets += q
        if not dense:
            self.regrets[name][rows], self.sums[name][rows] = regrets, sums
        self.sigma[name][rows] = regret_matching(regrets)

    def solve(self, iterations: int, callback: Callable | None = None) -> ClassStrategy:
        run(self, RunPlan(iterations), callback, handle_signals=False)
        return self.average_strategy()

    def average_strategy(self) -> ClassStrategy:
        tables = {name: regret_matching(s).astype(np.float32) for name, s in self.sums.items()}
        return ClassStrategy(self.game, tables, {"algorithm": self.rule.name, "iterations": self.iteration,
                                                "deals": self.deals_done, "seed": self.seed, "batch": self.batch})

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
        return SampledCheckpoint(self.game.spec, self.rule, self.seed, self.batch, self.n_shards, self.iteration,
                                 self.phase, self.regrets, self.sums)

    @classmethod
    def from_checkpoint(cls, checkpoint: SampledCheckpoint, shard_set: Callable | None = None) -> SampledSolver:
        """Continue ``checkpoint`` bitwise as if it had never stopped, on any shard set."""
        solver = cls(load_game(checkpoint.game), checkpoint.rule.name, checkpoint.batch, checkpoint.seed,
                     checkpoint.shards, shard_set)
        for name in solver.regrets:
            solver.regrets[name][...] = checkpoint.regrets[name]
            solver.sums[name][...] = checkpoint.sums[name]
            solver.sigma[name][...] = regret_matching(solver.regrets[name])
        solver.iteration, solver.phase = checkpoint.iteration, checkpoint.phase
        return solver


@dataclass(frozen=True, eq=False)
class SampledCheckpoint:
    """A sampled solve's state: the stream key (seed, batch, shards), where it stands, and the
    regret and sum tables per block (the current strategy is regret matching on the regrets)."""

    game: str
    rule: Rule
    seed: int
    batch: int
    shards: int
    iteration: int
    phase: int
    regrets: dict
    sums: dict
    mode = "sampled"
    updates = "alternating"

    def save(self, path) -> None:
        fields = {"mode": "sampled", "game": self.game, "rule": self.rule.fields(), "seed": self.seed,
                  "batch": self.batch, "shards": self.shards, "iteration": self.iteration, "phase": self.phase}
        tables = {f"regrets.{k}": v for k, v in self.regrets.items()} | {f"sums.{k}": v for k, v in self.sums.items()}
        schema = sampled_checkpoint_schema({name: tuple(table.shape[1:]) for name, table in self.regrets.items()})
        write_checkpoint_file(path, fields, tables, schema)

    @classmethod
    def load(cls, path) -> SampledCheckpoint:
        """Read and check a sampled checkpoint: every field against its schema
        (distcfr.io.checkpoint), the tables' shapes taken from the game it names. BadFile (one
        line) for anything that is not a checkpoint of a real sampled run."""
        with open_checkpoint_file(path) as file:
            spec = file.header["game"]
            if file.header["mode"] != "sampled":
                raise BadFile(f"{path} is a checkpoint of an exact solve, not of a sampled one")
            try:
                game = load_game(spec)
                kernel = game.sampled()
            except (DistcfrError, AttributeError) as err:
                raise BadFile(f"{path}: its game {spec[:200]!r} cannot be sampled: {err}") from None
            blocks = {b.name: tuple(int(n) for n in b.shape) for b in kernel.blocks}
            fields = file.read({"game": game.spec, "classes": kernel.n_classes}, sampled_checkpoint_schema(blocks))
        try:
            rule = sampled_rule(rule_from_fields(fields["rule"], complete=True).name)
        except DistcfrError as err:
            raise BadFile(f"{path}: its rule cannot be used: {err}") from None
        ints = [fields[k] for k in ("seed", "batch", "shards", "iteration", "phase")]
        if fields["shards"] > fields["batch"]:
            raise BadFile(f"{path}: {fields['shards']} shards for a batch of {fields['batch']} deals")
        split = {kind: {name: fields[f"{kind}.{name}"] for name in blocks} for kind in ("regrets", "sums")}
        return cls(game.spec, rule, *ints, split["regrets"], split["sums"])

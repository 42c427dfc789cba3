"""Checkpoints: everything a solve needs to continue bitwise as if never stopped. An exact solve's
(``Checkpoint``: its whole tables) and a sampled solve's (``SampledCheckpoint``: its stream key and
where its tables are, streamed chunk by chunk); ``load_checkpoint`` reads either, as the file's
header says. The file formats are distcfr.io.checkpoint's and distcfr.io.sampled_checkpoint's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.layout import Layout
from distcfr.engine.rules import Rule, rule_from_fields, sampled_rule
from distcfr.errors import BadFile, DistcfrError
from distcfr.evaluate.strategy import game_layout
from distcfr.games.registry import load_game
from distcfr.io.checkpoint import UPDATES, open_checkpoint_file, write_checkpoint_file
from distcfr.io.sampled_checkpoint import CHUNK_BYTES, SampledCheckpointFile, TableSpec, write_sampled_checkpoint
from distcfr.io.sampled_checkpoint import KIND as SAMPLED_KIND
from distcfr.io.sampled_checkpoint import chunks as table_chunks
from distcfr.io.schema import file_format, game_dims

TABLES = ("regrets", "sums", "sigma", "prediction")
SHARES_OF_FILES_WITHOUT_THEM = (1, 1)  # sampled checkpoints written before deal shares: 1:1, whatever the default
__all__ = ["TABLES", "UPDATES", "Checkpoint", "SampledCheckpoint", "load_checkpoint"]


@dataclass(frozen=True, eq=False)
class Checkpoint:
    """A solver's state at an iteration boundary, or (alternating updates) between the two
    players' halves of an iteration: ``phase`` is the player who updates next."""

    game: str  # canonical spec
    rule: Rule
    updates: str
    shards: int
    iteration: int
    phase: int
    regrets: np.ndarray  # (B, n_is, A) float64
    sums: np.ndarray  # (B, n_is, A) float64
    sigma: np.ndarray  # (B, n_is, A) float64
    prediction: np.ndarray | None  # (B, n_is, A) float64 for a predictive rule

    mode = "exact"

    @property
    def nbytes(self) -> int:
        """About how many bytes its file takes (its tables)."""
        return sum(getattr(self, name).nbytes for name in TABLES if getattr(self, name) is not None)

    def save(self, path) -> None:
        """Write atomically (a crash never leaves half a file)."""
        fields = {"game": self.game, "rule": self.rule.fields(), "updates": self.updates, "shards": self.shards,
                  "iteration": self.iteration, "phase": self.phase,
                  # exact solves draw no random numbers; a sampling solver stores its stream key here
                  "rng_state": None}
        write_checkpoint_file(path, fields, {name: getattr(self, name) for name in TABLES})

    @classmethod
    def load(cls, path) -> Checkpoint:
        """Read and check a checkpoint: every field against the schema (distcfr.io.checkpoint)
        with the tables' shapes taken from the game it names, then what needs the update rule.
        BadFile (one line) for anything that is not a checkpoint of a real run."""
        if file_format(path) == SAMPLED_KIND:
            raise BadFile(f"{path} is a checkpoint of a sampled solve, not of an exact one")
        with open_checkpoint_file(path) as file:
            spec = file.header["game"]
            if file.header["mode"] == "sampled":  # written before sampled checkpoints streamed (their own format)
                raise BadFile(f"{path} is a sampled checkpoint of an earlier format, which this distcfr no longer "
                              f"reads; start the run again")
            if file.header["mode"] not in (None, "exact"):
                raise BadFile(f"{path} is a checkpoint of a {file.header['mode']} solve, not of an exact one")
            layout = game_layout(path, spec, tables_only=True)  # where the shards go is the resume's launch's
            fields = file.read(game_dims(layout))
        try:
            rule = rule_from_fields(fields["rule"], complete=True)
        except DistcfrError as err:
            raise BadFile(f"{path}: its rule cannot be used: {err}") from None
        if rule.predictive and fields["prediction"] is None:
            raise BadFile(f"{path}: no prediction table for {rule.name}")
        if fields["phase"] and fields["updates"] != "alternating":
            raise BadFile(f"{path}: phase {fields['phase']} with {fields['updates']} updates")
        if rule.floor and (fields["regrets"] < 0).any():
            raise BadFile(f"{path}: negative regrets, which {rule.name} floors at zero")
        _check_iteration(path, layout, rule, fields)
        prediction = fields["prediction"] if rule.predictive else None
        return cls(spec, rule, fields["updates"], fields["shards"], fields["iteration"], fields["phase"],
                   fields["regrets"], fields["sums"], fields["sigma"], prediction)


def _check_iteration(path, layout: Layout, rule: Rule, fields: dict) -> None:
    """The strategy sums of the infosets at the root of the tree grow by the root's whole
    probability (1) per update of their player, discounted as the rule says: after ``u``
    updates they total ``rule.average_weight_bounds(u)`` in every variant. An iteration count
    (or sums) that a run of this rule cannot have produced is refused."""
    tree = layout.tree
    player = int(tree.player[0])
    rows = layout.rows_at(player, 0)
    updates = fields["iteration"] + (1 if player == 0 and fields["phase"] == 1 else 0)
    low, high = rule.average_weight_bounds(updates)
    totals = fields["sums"][:, rows].sum(axis=(1, 2))  # (B,)
    slack = 1e-6 * max(1.0, high)
    if (totals < low - slack).any() or (totals > high + slack).any():
        found = float(totals.min() if (totals < low - slack).any() else totals.max())
        raise BadFile(f"{path}: iteration {fields['iteration']} does not fit its strategy sums (the root's sums "
                      f"total {found:.6g}; {rule.name} after {updates} updates gives {low:.6g} to {high:.6g})")


def table_specs(kernel) -> list[TableSpec]:
    """The tables of a sampled checkpoint, in file order: every strategy table's regrets, then its sums."""
    tables = kernel.strategy_tables
    return ([TableSpec(f"regrets.{t.name}", (kernel.table_rows(t), *t.shape), "finite") for t in tables]
            + [TableSpec(f"sums.{t.name}", (kernel.table_rows(t), *t.shape), "nonnegative") for t in tables])


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
    deal_shares: tuple[int, int] = SHARES_OF_FILES_WITHOUT_THEM  # (button, big blind) deals per deal of the batch
    mode = "sampled"
    updates = "alternating"

    @property
    def nbytes(self) -> int:
        """About how many bytes its file takes (its tables, as the running solver holds them)."""
        if self.source is None:
            return Path(self.path).stat().st_size
        item = np.dtype(self.source.tables_dtype).itemsize
        return sum(int(np.prod(t.shape)) * item for t in table_specs(sampled_kernel(load_game(self.game))))

    def save(self, path) -> None:
        """Write the checkpoint to ``path`` atomically, a chunk of rows at a time (the file
        format: distcfr.io.sampled_checkpoint)."""
        assert self.source is not None, "a checkpoint read from a file is saved by the solver it resumes"
        fields = {"game": self.game, "rule": self.rule.fields(), "seed": self.seed, "batch": self.batch,
                  "shards": self.shards, "iteration": self.iteration, "phase": self.phase,
                  "deal_shares": list(self.deal_shares)}
        kernel = sampled_kernel(load_game(self.game))
        write_sampled_checkpoint(path, fields, table_specs(kernel), np.dtype(self.source.tables_dtype).str,
                                 self.source.read_rows)

    def chunks(self, dtype) -> Iterator[tuple[str, int, np.ndarray]]:
        """(table, first row, rows) of every table, as ``dtype``."""
        if self.source is not None:  # straight from a running solver's shards, a file's chunk at a time
            requests = [(t.name, lo, hi) for t in table_specs(sampled_kernel(load_game(self.game)))
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
            kernel = sampled_kernel(game)
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
        shares = tuple(fields.get("deal_shares") or SHARES_OF_FILES_WITHOUT_THEM)
        return cls(game.spec, rule, *ints, path=path, deal_shares=shares)


def load_checkpoint(path) -> Checkpoint | SampledCheckpoint:
    """The checkpoint at ``path``, exact or sampled as its file's header says."""
    if file_format(path) == SAMPLED_KIND:
        return SampledCheckpoint.load(path)
    return Checkpoint.load(path)

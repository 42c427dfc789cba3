"""Checkpoints: everything a solve needs to continue bitwise as if never stopped."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.errors import BadFile, DistcfrError
from distcfr.games.registry import load_game
from distcfr.io.checkpoint import read_checkpoint_file, write_checkpoint_file
from distcfr.solve.rules import Rule, rule_from_fields

TABLES = ("regrets", "sums", "sigma", "prediction")
UPDATES = ("alternating", "simultaneous")


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

    def save(self, path) -> None:
        """Write atomically (a crash never leaves half a file)."""
        fields = {"game": self.game, "rule": self.rule.fields(), "updates": self.updates, "shards": self.shards,
                  "iteration": self.iteration, "phase": self.phase,
                  # exact solves draw no random numbers; a sampling solver stores its stream key here
                  "rng_state": None}
        write_checkpoint_file(path, fields, {name: getattr(self, name) for name in TABLES})

    @classmethod
    def load(cls, path) -> Checkpoint:
        """Read and check a checkpoint: every field's type, and the tables' shapes against the
        game it names. BadFile (one line) for anything that is not a checkpoint of a real run."""
        fields, tables = read_checkpoint_file(path, TABLES)
        spec = _field(fields, "game", str, path)
        updates = _field(fields, "updates", str, path)
        shards = _field(fields, "shards", int, path)
        iteration = _field(fields, "iteration", int, path)
        phase = fields.get("phase", 0)
        if updates not in UPDATES or shards < 1 or iteration < 0 or phase not in (0, 1) or isinstance(phase, bool):
            raise BadFile(f"{path}: impossible update order, shard count {shards}, iteration {iteration} "
                          f"or phase {phase!r}")
        try:
            rule = rule_from_fields(fields.get("rule"))
        except DistcfrError as err:
            raise BadFile(f"{path}: its rule cannot be used: {err}") from None
        try:
            layout = Layout(load_game(spec))
        except DistcfrError as err:
            raise BadFile(f"{path}: its game {spec!r} cannot be loaded: {err}") from None
        shape = (layout.n_variants, layout.n_infosets, layout.max_actions)
        for name in TABLES:
            array = tables[name]
            if array is None and (name != "prediction" or rule.predictive):
                raise BadFile(f"{path}: no {name} table" + (f" for {rule.name}" if name == "prediction" else ""))
            if array is not None and (array.shape != shape or array.dtype != np.float64):
                raise BadFile(f"{path}: {name} has shape {array.shape}, expected {shape} for {spec}")
        return cls(spec, rule, updates, shards, iteration, phase, tables["regrets"], tables["sums"],
                   tables["sigma"], tables["prediction"] if rule.predictive else None)


def _field(fields: dict, key: str, kind: type, path):
    value = fields.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BadFile(f"{path}: field {key!r} is missing or has the wrong type")
    return value


def load_any_checkpoint(path):
    """A Checkpoint, or a SampledCheckpoint for a sampled solve's file."""
    fields, _ = read_checkpoint_file(path, ())
    if fields.get("mode") == "sampled":
        from distcfr.solve.sampled_solver import SampledCheckpoint

        return SampledCheckpoint.load(path)
    return Checkpoint.load(path)

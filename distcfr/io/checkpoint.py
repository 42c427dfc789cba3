"""Checkpoint files: named fields plus named float64 tables. The schema below is the whole of
what such a file may hold; what the fields mean, and the checks that need the update rule, are
distcfr.solve.checkpoint's."""

from __future__ import annotations

import numpy as np

from distcfr.io.paths import write_atomic
from distcfr.io.schema import MAX_ITERATION, Array, Int, Null, Opt, Schema, SchemaFile, Str
from distcfr.io.strategy_file import GAME_SPEC, RULE, TABLE

KIND = "distcfr-checkpoint"
VERSION = 2  # 2: sealed by checksums (io.schema.seal); version 1 files are refused by name
UPDATES = ("alternating", "simultaneous")
MODES = ("exact", "sampled")
# the game, and which solver wrote the file (absent: exact; "sampled": the whole-table sampled checkpoints
# written before they streamed, refused by name; today's are distcfr.io.sampled_checkpoint's)
HEADER = {"game": GAME_SPEC, "mode": Opt(Str(16, choices=MODES))}

CHECKPOINT = Schema(KIND, VERSION, header=HEADER, body={
    "rule": RULE,
    "updates": Str(16, choices=UPDATES),
    "shards": Int(1, "deals"),
    "iteration": Int(0, MAX_ITERATION),
    "phase": Int(0, 1),  # alternating updates: the player who updates next
    "rng_state": Null(),  # exact solves draw no random numbers; a sampling solver stores its stream key here
    "regrets": Array("<f8", TABLE, values="finite"),
    "sums": Array("<f8", TABLE, values="nonnegative"),
    "sigma": Array("<f8", TABLE, values="distribution"),
    "prediction": Opt(Array("<f8", TABLE, values="finite")),  # predictive rules only
})


def write_checkpoint_file(path, fields: dict, tables: dict[str, np.ndarray | None]) -> None:
    """Write ``fields`` and ``tables`` (None for an absent table) atomically."""
    write_atomic(path, CHECKPOINT.encode({**fields, **tables}))


def open_checkpoint_file(path) -> SchemaFile:
    """The checkpoint file at ``path`` with its header (game spec and mode) decoded; BadFile
    when it is not one. ``.read(game_dims(layout))`` checks and decodes the rest."""
    return CHECKPOINT.open(path)

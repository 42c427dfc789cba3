"""Checkpoint files: named fields plus named float64 tables. The schema below is the whole of
what such a file may hold; what the fields mean, and the checks that need the update rule, are
distcfr.solve.checkpoint's."""

from __future__ import annotations

import numpy as np

from distcfr.io.paths import write_atomic
from distcfr.io.schema import Array, Int, Null, Opt, Schema, SchemaFile, Str
from distcfr.io.strategy_file import GAME_SPEC, RULE, TABLE

KIND = "distcfr-checkpoint"
VERSION = 1
UPDATES = ("alternating", "simultaneous")
MODES = ("exact", "sampled")
# the game, and which solver wrote the file (absent: exact); the body's schema depends on both
HEADER = {"game": GAME_SPEC, "mode": Opt(Str(16, choices=MODES))}
SAMPLED_TABLE_DTYPES = ("<f4", "<f8")  # a sampled solver's tables (float32 unless asked otherwise)

CHECKPOINT = Schema(KIND, VERSION, header=HEADER, body={
    "rule": RULE,
    "updates": Str(16, choices=UPDATES),
    "shards": Int(1, "deals"),
    "iteration": Int(0),
    "phase": Int(0, 1),  # alternating updates: the player who updates next
    "rng_state": Null(),  # exact solves draw no random numbers; a sampling solver stores its stream key here
    "regrets": Array("<f8", TABLE, values="finite"),
    "sums": Array("<f8", TABLE, values="nonnegative"),
    "sigma": Array("<f8", TABLE, values="distribution"),
    "prediction": Opt(Array("<f8", TABLE, values="finite")),  # predictive rules only
})




def sampled_checkpoint_schema(blocks: dict[str, tuple[int, ...]]) -> Schema:
    """A chance-sampled solve's checkpoint (mode "sampled"): the stream key (seed, batch, shards),
    where it stands, and a regret and a sum table per block of the game's hand-class tables,
    ``blocks`` naming each block's shape after the class axis (dimension ``classes``)."""
    body = {"rule": RULE, "seed": Int(0, 2**63 - 1), "batch": Int(1, 2**40), "shards": Int(1, 2**40),
            "iteration": Int(0), "phase": Int(0, 1)}
    for name, shape in blocks.items():
        body[f"regrets.{name}"] = Array(SAMPLED_TABLE_DTYPES, ("classes", *shape), values="finite")
        body[f"sums.{name}"] = Array(SAMPLED_TABLE_DTYPES, ("classes", *shape), values="nonnegative")
    return Schema(KIND, VERSION, header=HEADER, body=body)



def write_checkpoint_file(path, fields: dict, tables: dict[str, np.ndarray | None],
                          schema: Schema = CHECKPOINT) -> None:
    """Write ``fields`` and ``tables`` (None for an absent table) atomically."""
    write_atomic(path, schema.encode({**fields, **tables}))


def open_checkpoint_file(path) -> SchemaFile:
    """The checkpoint file at ``path`` with its header (game spec and mode) decoded; BadFile
    when it is not one. ``.read(dims)`` (exact: ``game_dims(layout)``; sampled:
    ``.read(dims, sampled_checkpoint_schema(blocks))``) checks and decodes the rest."""
    return CHECKPOINT.open(path)

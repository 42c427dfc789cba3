"""Compact strategy files of chance-sampled solves: one float16 table per strategy table of a game's
hand classes (``distcfr.engine.sampled_draw27``), each row a distribution over the table's
actions, and the run's metadata. Reading and checking them against the game is
distcfr.evaluate.class_strategy's; the schema below is the whole of what such a file may hold."""

from __future__ import annotations

from distcfr.io.paths import write_atomic
from distcfr.io.schema import MAX_ITERATION, Array, Float, Int, List, Opt, Record, Schema, SchemaFile, Str
from distcfr.io.strategy_file import GAME_SPEC, RULE

KIND = "distcfr-class-strategy"
VERSION = 2  # 2: sealed by checksums (io.schema.seal), evaluation declared; 1 is still read, unchecked

# one stack's evaluation: the bracket's value and its standard error, its upper estimate, the 95% interval
# and both estimates, the latest iterate's gain as a response with its standard error, and where the run
# enumerated the game the exact exploitability (BB per hand); every key but the stack's label optional
EVALUATION = {
    "variant": Str("label_bytes"),
    "value": Opt(Float()),
    "value_se": Opt(Float(lo=0.0)),
    "exploitability": Opt(Float()),
    "exploitability_ci": Opt(List(Float(), length=2)),
    "exploitability_estimates": Opt(List(Float(), length=2)),
    "latest_iterate_estimate": Opt(List(Float(), length=2)),
    "exploitability_exact": Opt(Float()),
}

# what a sampled run records beside its tables; every key optional
META = {
    "algorithm": Opt(Str(64)),
    "iterations": Opt(Int(0, MAX_ITERATION)),
    "deals": Opt(Int(0, 2**63)),
    "seed": Opt(Int(0, 2**63 - 1)),
    "batch": Opt(Int(1, 2**40)),
    "rule": Opt(RULE),
    # the evaluation printed when the file was written: per stack (evaluate.summary.sampled_summary)
    "evaluation": Opt(List(Record(EVALUATION), max_len="variants")),
}


def class_strategy_schema(tables: dict[str, tuple[int, ...]], keyed: tuple[str, ...] = ()) -> Schema:
    """The file of a game whose hand-class tables have these ``tables`` (name -> shape after the
    class axis, dimension ``classes``, or for the ``keyed`` tables ``keys``: rows shared by every
    class; the last axis is the table's actions)."""
    tables = {name: Array("<f2", ("keys" if name in keyed else "classes", *shape), values="distribution", legal=None)
              for name, shape in tables.items()}
    return Schema(KIND, VERSION, header={"game": GAME_SPEC}, body={"meta": Record(META), "tables": Record(tables)},
                  unchecked=(1,))


HEADER_ONLY = Schema(KIND, VERSION, header={"game": GAME_SPEC}, unchecked=(1,))


def write_class_strategy_file(path, schema: Schema, *, game: str, meta: dict, tables: dict) -> None:
    """Write atomically; ``meta`` keys the schema does not declare are left out."""
    write_atomic(path, schema.encode({"game": game, "meta": {k: v for k, v in meta.items() if k in META},
                                      "tables": tables}))


def open_class_strategy_file(path) -> SchemaFile:
    """The file at ``path`` with its header (the game spec) decoded; BadFile when it is not one.
    ``.read(dims, class_strategy_schema(tables))`` checks and decodes the rest."""
    return HEADER_ONLY.open(path)

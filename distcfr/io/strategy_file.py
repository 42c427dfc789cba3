"""Strategy files: a strategy table with the labels needed to read it without distcfr
(infoset labels, action labels) and the evaluation it was printed with. The schema below is
the whole of what such a file may hold; the reader (distcfr.evaluate.strategy) supplies the
dimensions of the game the file names (``schema.game_dims``)."""

from __future__ import annotations

import numpy as np

from distcfr.io.paths import write_atomic
from distcfr.io.schema import MAX_ITERATION, Array, Either, Float, Int, List, Map, Record, Schema, SchemaFile, Str

KIND = "distcfr-strategy"
VERSION = 2  # 2: sealed by checksums (io.schema.seal); 1 is still read, unchecked
TABLE = ("variants", "infosets", "actions")
GAME_SPEC = Str(4096)
RULE = Map(Either((Str(64), Float())), max_len=16)  # {"name": rule, parameter: value}; {} for none

STRATEGY = Schema(KIND, VERSION, header={"game": GAME_SPEC}, body={
    "algorithm": Str(64),
    "rule": RULE,
    "iterations": Int(0, MAX_ITERATION),
    "variants": List(Str("label_bytes"), length="variants", equals="variant_labels"),
    "infosets": List(Str("label_bytes"), length="infosets", equals="labels"),
    "actions": List(List(Str("label_bytes"), max_len="actions"), length="infosets", equals="action_labels"),
    "probabilities": Array("<f8", TABLE, values="distribution"),
    # the evaluation printed when the file was written: one row per variant, or {} for none
    "evaluation": Either((
        List(Record({"variant": Str("label_bytes"), "value": Float(), "exploitability": Float(),
                     "best_response": List(Float(), length=2)}), max_len="variants"),
        Map(Float(), max_len=0))),
}, unchecked=(1,))


def write_strategy_file(path, *, game: str, algorithm: str, rule: dict, iterations: int, variants: list[str],
                        infosets: list[str], actions: list[list[str]], probabilities: np.ndarray,
                        evaluation) -> None:
    """Write a strategy file atomically; ``probabilities`` is (variants, infosets, max actions)."""
    write_atomic(path, STRATEGY.encode({
        "game": game, "algorithm": algorithm, "rule": rule, "iterations": int(iterations),
        "variants": list(variants), "infosets": list(infosets), "actions": [list(a) for a in actions],
        "probabilities": probabilities, "evaluation": evaluation,
    }))


def open_strategy_file(path) -> SchemaFile:
    """The strategy file at ``path`` with its header (the game spec) decoded; BadFile when it
    is not one. ``.read(game_dims(layout))`` checks and decodes the rest."""
    return STRATEGY.open(path)

"""Strategy files: a strategy table with the labels needed to read it without distcfr
(infoset labels, action labels) and the evaluation it was printed with. This module reads and
writes the fields; checking them against the game is the reader's (distcfr.evaluate.strategy)."""

from __future__ import annotations

import numpy as np

from distcfr.io.msgpack_io import pack_array, read_map, require, unpack_array, write_map

KIND = "distcfr-strategy"
VERSION = 1


def write_strategy_file(path, *, game: str, algorithm: str, rule: dict, iterations: int, variants: list[str],
                        infosets: list[str], actions: list[list[str]], probabilities: np.ndarray,
                        evaluation) -> None:
    """Write a strategy file atomically; ``probabilities`` is (variants, infosets, max actions)."""
    write_map(path, KIND, VERSION, {
        "game": game, "algorithm": algorithm, "rule": rule, "iterations": int(iterations),
        "variants": list(variants), "infosets": list(infosets), "actions": [list(a) for a in actions],
        "probabilities": pack_array(probabilities), "evaluation": evaluation,
    })


def read_strategy_file(path) -> dict:
    """The fields of a strategy file, ``probabilities`` decoded to an array; BadFile when the
    file is not one."""
    obj = read_map(path, KIND, VERSION)
    require(obj, "game", str, path)
    require(obj, "infosets", list, path)
    return {**obj, "probabilities": unpack_array(obj.get("probabilities"), f"{path}: probabilities")}

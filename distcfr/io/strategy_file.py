"""Strategy files: the average strategy of a solve, with the labels needed to read it
without distcfr (infoset labels, action labels) and the evaluation it was printed with."""

from __future__ import annotations

import numpy as np

from distcfr.errors import BadFile, DistcfrError
from distcfr.io.msgpack_io import pack_array, read_map, require, unpack_array, write_map

KIND = "distcfr-strategy"
VERSION = 1


def save_strategy(strategy, path) -> None:
    """Write ``strategy`` (a distcfr.Strategy) to ``path`` atomically."""
    layout = strategy.layout
    meta = strategy.meta
    write_map(path, KIND, VERSION, {
        "game": layout.game.spec,
        "algorithm": meta.get("algorithm", ""),
        "rule": meta.get("rule", {}),
        "iterations": int(meta.get("iterations", 0)),
        "variants": list(layout.game.variant_labels),
        "infosets": list(layout.labels),
        "actions": [list(a) for a in layout.action_labels],
        "probabilities": pack_array(strategy.probs),
        "evaluation": meta.get("evaluation", {}),
    })


def load_strategy(path):
    """Read a strategy file back as a distcfr.Strategy of its game."""
    from distcfr.games import load_game
    from distcfr.solve.layout import Layout
    from distcfr.strategy import Strategy

    obj = read_map(path, KIND, VERSION)
    spec = require(obj, "game", str, path)
    try:
        layout = Layout(load_game(spec))
    except DistcfrError as err:
        raise BadFile(f"{path}: its game {spec!r} cannot be loaded: {err}") from None
    probs = unpack_array(obj.get("probabilities"), "probabilities")
    if require(obj, "infosets", list, path) != list(layout.labels):
        raise BadFile(f"{path}: its infosets do not match game {spec} (made by another version?)")
    expected = (layout.n_variants, layout.n_infosets, layout.max_actions)
    if probs.shape != expected or probs.dtype != np.float64:
        raise BadFile(f"{path}: probabilities have shape {probs.shape}, expected {expected}")
    meta = {"algorithm": obj.get("algorithm", ""), "iterations": obj.get("iterations", 0),
            "rule": obj.get("rule", {}), "evaluation": obj.get("evaluation", {})}
    return Strategy(layout, probs, meta=meta)

"""Checkpoints: everything a solve needs to continue bitwise as if never stopped."""

from __future__ import annotations

import numpy as np

from distcfr.errors import BadFile, DistcfrError
from distcfr.io.msgpack_io import pack_array, read_map, require, unpack_array, write_map

KIND = "distcfr-checkpoint"
VERSION = 1
TABLES = ("regrets", "sums", "sigma")


def save_checkpoint(solver, path) -> None:
    """Write the solver's state to ``path`` atomically."""
    fields = {
        "game": solver.game.spec,
        "rule": solver.rule.params(),
        "updates": solver.updates,
        "shards": solver.n_shards,
        "iteration": solver.iteration,
        "prediction": None if solver.prediction is None else pack_array(solver.prediction),
        # exact solves draw no random numbers; a sampling solver would store its stream state here
        "rng_state": None,
    }
    fields.update({name: pack_array(getattr(solver, name)) for name in TABLES})
    write_map(path, KIND, VERSION, fields)


def load_checkpoint(path) -> dict:
    """Read and check a checkpoint; returns its fields with arrays decoded. The arrays'
    shapes are checked against the game the checkpoint names."""
    from distcfr.games import load_game
    from distcfr.solve.layout import Layout

    obj = read_map(path, KIND, VERSION)
    spec = require(obj, "game", str, path)
    require(obj, "rule", dict, path)
    require(obj, "updates", str, path)
    shards = require(obj, "shards", int, path)
    iteration = require(obj, "iteration", int, path)
    if shards < 1 or iteration < 0:
        raise BadFile(f"{path}: impossible shard count {shards} or iteration {iteration}")
    try:
        layout = Layout(load_game(spec))
    except DistcfrError as err:
        raise BadFile(f"{path}: its game {spec!r} cannot be loaded: {err}") from None
    shape = (layout.n_variants, layout.n_infosets, layout.max_actions)
    out = dict(obj)
    names = TABLES + (("prediction",) if obj.get("prediction") is not None else ())
    for name in names:
        array = unpack_array(obj.get(name), f"{path}: {name}")
        if array.shape != shape or array.dtype != np.float64:
            raise BadFile(f"{path}: {name} has shape {array.shape}, expected {shape} for {spec}")
        out[name] = array
    return out

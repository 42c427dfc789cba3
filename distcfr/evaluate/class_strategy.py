"""The strategy of a chance-sampled solve: one row per suit-isomorphic hand class and block
(``distcfr.games.draw27_sampled``), evaluated by the sampled exploitability bracket, or exactly
where the game is small enough to enumerate. Files store the probabilities as float16."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from distcfr.errors import BadFile, DistcfrError
from distcfr.evaluate.sampled import Bracket, exploitability_bracket, to_exact_strategy
from distcfr.evaluate.strategy import Strategy
from distcfr.games.registry import load_game
from distcfr.io.msgpack_io import pack_array, read_map, require, unpack_array, write_map

KIND = "distcfr-class-strategy"
VERSION = 1
BRACKET_SAMPLES = 100_000  # deals per sample set of the default bracket
BRACKET_SEED = 2**31 - 1  # a stream no solve draws from (solves use the user's --seed)


class ClassStrategy:
    """Average strategy tables {block: (C, *shape)} of a sampled game, per stack."""

    def __init__(self, game, tables: dict[str, np.ndarray], meta: dict | None = None):
        self.game = game
        self.kernel = game.sampled()
        self.tables = tables
        self.meta = dict(meta or {})

    def bracket(self, samples: int = BRACKET_SAMPLES, seed: int = BRACKET_SEED) -> Bracket:
        """The sampled exploitability bracket per stack (BB per hand): best responses chosen on
        ``samples`` deals and scored on as many independent ones (lower estimate), and their
        in-sample value (upper estimate), with standard errors; the profile value with its error."""
        return exploitability_bracket(self.kernel, self.tables, seed, samples)

    @cached_property
    def default_bracket(self) -> Bracket:
        return self.bracket()

    def exploitability(self) -> float:
        """The upper estimate of the default bracket, largest over the stacks (BB per hand)."""
        return float(self.default_bracket.high.max())

    def to_exact(self) -> Strategy:
        """The same strategy as a table of the exact game (small configurations only), for its
        exact exploitability."""
        layout, probs = to_exact_strategy(self.kernel, self.tables)
        return Strategy(layout, probs, meta=self.meta)

    def save(self, path) -> None:
        """Write a compact strategy file (float16 probabilities) atomically."""
        write_map(path, KIND, VERSION, {
            "game": self.game.spec, "meta": _plain(self.meta),
            "tables": {name: pack_array(table.astype(np.float16)) for name, table in self.tables.items()}})


def load_class_strategy(path) -> ClassStrategy:
    """Read a file written by ``ClassStrategy.save``; BadFile when it is not one of its game."""
    obj = read_map(path, KIND, VERSION)
    spec = require(obj, "game", str, path)
    try:
        game = load_game(spec)
        kernel = game.sampled()
    except (DistcfrError, AttributeError) as err:
        raise BadFile(f"{path}: its game {spec!r} cannot be sampled: {err}") from None
    raw = require(obj, "tables", dict, path)
    tables = {}
    for block in kernel.blocks:
        table = unpack_array(raw.get(block.name), f"{path}: {block.name}")
        if table.shape != (kernel.n_classes, *block.shape) or table.dtype != np.float16:
            raise BadFile(f"{path}: table {block.name} has shape {table.shape}, expected "
                          f"{(kernel.n_classes, *block.shape)} for {spec}")
        tables[block.name] = table.astype(np.float32)
    meta = obj.get("meta") if isinstance(obj.get("meta"), dict) else {}
    return ClassStrategy(game, tables, meta)


def _plain(value):
    """JSON-like copy (numpy scalars and arrays as Python numbers and lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value

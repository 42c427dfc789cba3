"""Checkpoint files: named fields plus named float64 tables. What they mean, and checking
them against the game, is distcfr.solve.checkpoint's."""

from __future__ import annotations

import numpy as np

from distcfr.io.msgpack_io import pack_array, read_map, unpack_array, write_map

KIND = "distcfr-checkpoint"
VERSION = 1


def write_checkpoint_file(path, fields: dict, tables: dict[str, np.ndarray | None]) -> None:
    """Write ``fields`` and ``tables`` (None for an absent table) atomically."""
    write_map(path, KIND, VERSION, {**fields, **{k: None if v is None else pack_array(v) for k, v in tables.items()}})


def read_checkpoint_file(path, table_names: tuple[str, ...]) -> tuple[dict, dict[str, np.ndarray | None]]:
    """(fields, tables) of a checkpoint file; BadFile when it is not one."""
    obj = read_map(path, KIND, VERSION)
    tables = {name: None if obj.get(name) is None else unpack_array(obj[name], f"{path}: {name}")
              for name in table_names}
    return {k: v for k, v in obj.items() if k not in table_names}, tables

"""The contract of a sampled kernel: what the class blocks, the bracket, the solver, checkpoints and
presentation call. A kernel is one game's chance-sampled CFR pass over deals grouped by one player's
hand class; :mod:`distcfr.engine.kernels` names each game's kernel.
"""

from __future__ import annotations

import dataclasses

import numpy as np

KEY_SUM_UNIT = 2.0**-32  # key tables' sums are int64 counts of this many BB: their order changes no bit


@dataclasses.dataclass(frozen=True)
class StrategyTable:
    """One strategy table of the sampled game (its name, the player who acts on it): ``shape`` is per
    class, the action axis last."""

    name: str
    player: int
    shape: tuple[int, ...]
    n_actions: int
    keyed: str = "class"  # "class": one row per hand class (class blocks own them); "post": one row per post-draw key


@dataclasses.dataclass(frozen=True)
class ClassTotals:
    """Batch sums of one strategy table per hand class: rows (G,) class ids, q (G, *shape) counterfactual
    action values in the acting player's payoff, reach (G, B) own reach (float32)."""

    rows: np.ndarray
    q: np.ndarray
    reach: np.ndarray




def class_tables(kernel) -> list[StrategyTable]:
    """The kernel's tables with one row per hand class (the class blocks own their rows)."""
    return [t for t in kernel.strategy_tables if t.keyed == "class"]


def key_tables(kernel) -> list[StrategyTable]:
    """The kernel's tables whose rows are keys every class shares (post-draw keys): the block set
    holds them and adds every group's sums (:meth:`~distcfr.engine.class_blocks.ClassBlockGroup.take_key_sums`)."""
    return [t for t in kernel.strategy_tables if t.keyed != "class"]

"""The contract of a sampled kernel (:class:`SampledKernel`): what the class blocks, the bracket, the
solver, checkpoints and presentation call. A kernel is one game's chance-sampled CFR pass over deals
grouped by one player's hand class; :mod:`distcfr.engine.kernels` names each game's kernel
(draw27's :class:`~distcfr.engine.sampled_draw27.SampledDraw27`, nl27's
:class:`~distcfr.engine.sampled_nl27.SampledNl27`). Deals, hand classes and class tables come from
:class:`~distcfr.engine.lowball_deals.LowballDeals`, which both extend.

Tables are of two kinds. A class table has one row per hand class of its player: the class blocks own
its rows, and a class's sums depend on its own deals only, so the blocks update them where they lie.
A key table (nl27's post-draw decisions, keyed by the final hand's value) has rows that every class
shares: the kernel adds its sums into int64 accumulators (units of KEY_SUM_UNIT, so that their order
changes no bit), the block set adds the groups' and updates the rows.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol, runtime_checkable

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
    cuts them into slices, each group owning one, and adds every group's sums of a slice where it
    lies (:meth:`~distcfr.engine.class_blocks.ClassBlockGroup.update_keys`)."""
    return [t for t in kernel.strategy_tables if t.keyed != "class"]


@runtime_checkable
class SampledKernel(Protocol):
    """What every sampled kernel provides. Shapes: a table's rows (``table_rows``: hand classes, or keys),
    then its ``shape`` (the stack axis second to last, the actions last)."""

    strategy_tables: tuple[StrategyTable, ...]
    stacks: np.ndarray  # (B,) the stacks, one table column each
    n_keys: int  # rows of the key tables (0: none)
    stubs: int  # stubs per training deal
    cycle: bool  # whether a class's training deals walk the other hands in a cycle
    refines: bool  # whether the bracket's close classes choose their best response again (and a focus round)
    batch_per_class: int  # the default batch's deals per hand class
    bracket_deal_cost: float  # training deals a bracket's drawn deal costs (distcfr.engine.calibration)

    @property
    def n_classes(self) -> int: ...

    @property
    def deal_width(self) -> int: ...

    def table_rows(self, table: StrategyTable) -> int: ...

    def strategy_table(self, name: str) -> StrategyTable: ...

    def uniform(self, dtype=np.float32) -> dict[str, np.ndarray]: ...

    def sample_blocks_deals(self, seed: int, keys: list, player: int, first: int, counts: list,
                            stubs: int = 1, before: np.ndarray | None = None) -> np.ndarray:
        """Deals of consecutive runs of ``player``'s classes from ``first`` (a run's from its own stream)."""

    def sample_class_deals(self, seed: int, key: tuple, player: int, first: int, counts: np.ndarray,
                           stubs: int = 1) -> np.ndarray: ...

    def sample_deals_of_classes(self, seed: int, stream: int, player: int, first: int, stop: int,
                                per_class: int, stubs: int = 1) -> np.ndarray: ...

    def other_classes(self, deals: np.ndarray, player: int) -> tuple: ...

    def best_response(self, profile: dict, deals: np.ndarray, player: int) -> None:
        """Set ``player``'s rows in ``profile`` to its best response on ``deals`` (grouped by its class, in
        class order): class rows of the classes held (and whatever its key tables' response keeps),
        each class's from its own deals and rows only."""

    def responder_keys(self, sigma: dict, player: int) -> dict:
        """``player``'s key tables as a best response keeps them, over ``sigma``'s ({} without any)."""

    def response_bytes(self, per_class: int) -> int:
        """Bytes a class's best response holds on ``per_class`` deals (sizes the bracket's chunks)."""

    def class_sums(self, sigma: dict, deals: np.ndarray, player: int, counts: np.ndarray, first: int | None = None,
                   other: tuple | None = None, scratch=None, **key_sums) -> dict[str, ClassTotals]:
        """``player``'s counterfactual action values and own reach summed per class of its class tables
        (deals grouped by class), and (``key_sums``) added into its key tables' accumulators."""

    def deal_values(self, sigma: dict, deals: np.ndarray) -> np.ndarray:
        """(D, B) the button's payoff of each deal under ``sigma``."""

    def to_exact(self, tables: dict[str, np.ndarray]):
        """(layout, probs): the tables as a strategy of the exact game (decks the exact solver takes)."""

"""Reading back any strategy file distcfr writes, whichever solve made it: an exact solve's
(format ``distcfr-strategy``: a :class:`~distcfr.evaluate.strategy.Strategy`) or a sampled
solve's, one row per hand class (``distcfr-class-strategy``: a
:class:`~distcfr.evaluate.class_strategy.ClassStrategy`). The file's first bytes say which."""

from __future__ import annotations

from typing import TYPE_CHECKING

from distcfr.evaluate.strategy import Strategy
from distcfr.evaluate.strategy import load_strategy as load_exact_strategy
from distcfr.io.class_strategy_file import KIND as CLASS_STRATEGY
from distcfr.io.schema import file_format

if TYPE_CHECKING:
    from distcfr.evaluate.class_strategy import ClassStrategy


def load_strategy(path) -> Strategy | ClassStrategy:
    """The strategy in the file at ``path``: a Strategy, or a ClassStrategy for a sampled draw27
    file (its ``to_exact()`` is a Strategy where the game is small enough to enumerate); BadFile
    (one line) when the file is neither of its game."""
    if file_format(path) == CLASS_STRATEGY:
        from distcfr.evaluate.class_strategy import load_class_strategy  # the sampled machinery, only when needed

        return load_class_strategy(path)
    return load_exact_strategy(path)

"""The strategy of a chance-sampled solve: one row per suit-isomorphic hand class in each strategy table
(``distcfr.engine.sampled_draw27``), evaluated by the sampled exploitability bracket, or exactly
where the game is small enough to enumerate. Files store the probabilities as float16."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from distcfr.engine.calibration import EQUITY_PAIRS_PER_SECOND, SECONDS_PER_DEAL_AND_STACK
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.memory import check_fits, class_tables_bytes, exact_estimate
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS, bracket_chunks, chunk_total, value_chunk
from distcfr.engine.sampled_kernel import key_tables
from distcfr.errors import BadFile, BadParameter, DistcfrError
from distcfr.evaluate.nl27_lift import lift_strategy
from distcfr.evaluate.sampled import Bracket, exploitability_bracket
from distcfr.evaluate.strategy import Strategy
from distcfr.games.draw_equity import draw_pairs_per_deal
from distcfr.games.nl27 import Nl27
from distcfr.games.registry import load_game
from distcfr.io.class_strategy_file import (  # noqa: F401 (KIND: the file kind, for readers dispatching on it)
    KIND,
    class_strategy_schema,
    open_class_strategy_file,
    write_class_strategy_file,
)

BRACKET_DEALS = 2_000_000  # deals per sample set of the default bracket, at most
# and per hand class at most: past it the upper end nears the exact exploitability slowly (bench/sampled_interval.py)
MAX_PER_CLASS = 16_000
BRACKET_SEED = 2**31 - 1  # a stream no solve draws from (solves use the user's --seed)


class ClassStrategy:
    """Average strategy tables {table: (C, *shape)} of a sampled game, per stack."""

    def __init__(self, game, tables: dict[str, np.ndarray], meta: dict | None = None):
        self.game = game
        self.kernel = sampled_kernel(game)
        self.tables = tables
        self.meta = dict(meta or {})

    def bracket(self, per_class: int | None = None, seed: int = BRACKET_SEED, rounds: int = REFINE_ROUNDS,
                latest: dict[str, np.ndarray] | None = None, focus: int = FOCUS_SHARE) -> Bracket:
        """The sampled exploitability bracket per stack (BB per hand): best responses chosen on
        ``per_class`` deals per hand class and scored on as many independent ones (lower estimate),
        and their in-sample value (upper estimate), with standard errors; the profile value with its
        error. By default as many deals per class as fit in ``BRACKET_DEALS``; close classes choose
        again on more deals in up to ``rounds`` rounds (0: none), then the classes least certain on up to
        ``focus`` times a player's first deals (the focus round; 0: none). ``latest`` (the run's latest iterate,
        which a file does not keep) is scored as a response too: a second lower estimate."""
        return exploitability_bracket(self.kernel, self.tables, seed, per_class or default_per_class(self.kernel),
                                      rounds=rounds, latest=latest, focus_share=focus)

    def values(self, per_class: int, seed: int = BRACKET_SEED) -> tuple[np.ndarray, np.ndarray]:
        """(value, standard error) per stack, BB per hand: the button's value under this strategy on
        ``per_class`` fixed deals per hand class (:func:`~distcfr.engine.sampled_bracket.value_chunk`):
        the same deals for every strategy of the game."""
        total = chunk_total(value_chunk(self.kernel, self.tables, seed, per_class, first, stop)
                            for first, stop in bracket_chunks(self.kernel, per_class))
        return total[0], np.sqrt(total[1])

    @cached_property
    def default_bracket(self) -> Bracket:
        return self.bracket()

    def exploitability(self) -> float:
        """The upper estimate of the default bracket, largest over the stacks (BB per hand)."""
        return float(self.default_bracket.high.max())

    def to_exact(self) -> Strategy:
        """The same strategy as a table of the exact game (small configurations only), for its
        exact exploitability."""
        layout, probs = self.kernel.to_exact(self.tables)
        return Strategy(layout, probs, meta=self.meta)

    def exact_exploitability(self) -> np.ndarray:
        """(B,) the exact exploitability per stack (BB per hand) of these tables, every deal enumerated
        (:meth:`to_exact`); BadParameter (one line) where the game is too large or does not fit."""
        check_exact_reach(self.game)
        strategy = self.to_exact()
        if isinstance(self.game, Nl27):  # an abstract game forgets cards: its own best response by key would only
            strategy = lift_strategy(self.game, strategy)[1]  # bound it from below; measured in the full game
        return strategy.exploitability_per_variant()

    def as_stored(self) -> ClassStrategy:
        """The same strategy with its probabilities rounded as its file keeps them (float16), as
        :func:`load_class_strategy` reads them back."""
        tables = {name: table.astype(np.float16).astype(np.float32) for name, table in self.tables.items()}
        return ClassStrategy(self.game, tables, self.meta)

    def save(self, path) -> None:
        """Write a compact strategy file (float16 probabilities) atomically."""
        write_class_strategy_file(path, class_strategy_schema(*_table_shapes(self.kernel)), game=self.game.spec,
                                  meta=_plain(self.meta),
                                  tables={name: table.astype(np.float16) for name, table in self.tables.items()})


def exact_seconds(game) -> float | None:
    """About how long the exact exploitability of a strategy of ``game`` takes here, or None where
    the game is too large to enumerate."""
    if game.exact_size_problem():
        return None
    p = game.params
    pairs = game.n_deals * draw_pairs_per_deal(p.ranks * p.suits - 2 * p.hand, p.hand)
    return pairs / EQUITY_PAIRS_PER_SECOND + game.n_deals * len(game.variant_labels) * SECONDS_PER_DEAL_AND_STACK


def check_exact_reach(game) -> None:
    """BadParameter (one line) where the exact exploitability of ``game``'s strategies is out of reach:
    too many deals to enumerate, or more memory than this machine has."""
    problem = game.exact_size_problem()
    if problem:
        raise BadParameter(f"the exact exploitability of {game.spec} is out of reach: {problem}")
    check_fits(exact_estimate(game).this_machine, f"the exact exploitability of {game.spec}")


def default_per_class(kernel) -> int:
    """Deals per hand class of the default bracket: 16,000 on the smallest decks (7,142 on 280
    classes), 14 on 5 cards from 52."""
    return int(np.clip(BRACKET_DEALS // kernel.n_classes, 2, MAX_PER_CLASS))


def load_class_strategy(path) -> ClassStrategy:
    """Read a file written by ``ClassStrategy.save``; BadFile (one line) when it is not one of its
    game (see the schema in distcfr.io.class_strategy_file)."""
    with open_class_strategy_file(path) as file:
        spec = file.header["game"]
        try:
            game = load_game(spec)
            kernel = sampled_kernel(game)
        except (DistcfrError, AttributeError) as err:
            raise BadFile(f"{path}: its game {spec[:200]!r} cannot be sampled: {err}") from None
        check_fits(class_tables_bytes(kernel), f"{path}: a strategy of {game.spec}")
        dims = {"game": game.spec, "classes": kernel.n_classes, "keys": kernel.n_keys,
                "variants": len(game.variant_labels),
                "label_bytes": max(len(label.encode()) for label in game.variant_labels)}
        fields = file.read(dims, class_strategy_schema(*_table_shapes(kernel)))
        unchecked = None if file.checked else file.version  # written before files carried checksums
    tables = {name: table.astype(np.float32) for name, table in fields["tables"].items()}
    meta = {key: value for key, value in fields["meta"].items() if value is not None}
    if "evaluation" in meta:  # the declared keys a row has (absent ones read as None)
        meta["evaluation"] = [{k: v for k, v in row.items() if v is not None} for row in meta["evaluation"]]
    if unchecked is not None:
        meta["unchecked"] = unchecked
    return ClassStrategy(game, tables, meta)


def _table_shapes(kernel) -> tuple[dict[str, tuple[int, ...]], tuple[str, ...]]:
    """(name -> shape after the row axis, the names of the key tables)."""
    return ({table.name: tuple(int(n) for n in table.shape) for table in kernel.strategy_tables},
            tuple(t.name for t in key_tables(kernel)))


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

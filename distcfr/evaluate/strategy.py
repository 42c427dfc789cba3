"""A strategy table with its game: lookup by infoset label, exact evaluation, saving.

Infoset labels are ``"<private>|<observation>"``: the acting player's private cards (for
games with a board, ``hand/board``), a bar, then the public history as that player saw it
(action codes; rounds separated by ``.``). Examples: Kuhn ``"K|pb"``, Leduc
``"Q/J|rc.r"``, draw27 ``"7c3d|ac"``. ``Strategy.labels()`` lists them all.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.engine.memory import check_fits, exact_estimate
from distcfr.engine.shard_set import LocalShards
from distcfr.errors import BadFile, BadParameter, DistcfrError
from distcfr.evaluate.evaluator import Evaluator
from distcfr.games.registry import load_game
from distcfr.io.schema import game_dims
from distcfr.io.strategy_file import open_strategy_file, write_strategy_file


class Strategy:
    """Action probabilities for every infoset of both players, per variant.

    ``probs`` is (n_variants, n_infosets, max_actions); padding columns are 0.
    """

    def __init__(self, layout: Layout, probs: np.ndarray, evaluator: Evaluator | None = None,
                 meta: dict | None = None):
        self.layout = layout
        self.probs = probs
        self.meta = dict(meta or {})
        self._evaluator = evaluator

    @classmethod
    def from_dict(cls, game, table: dict[str, dict[str, float] | list[float]], variant: int | None = None):
        """A strategy of ``game`` from ``{infoset label: {action: prob} or [probs]}``; infosets
        not given play uniformly. The same table is used for every variant unless ``variant``."""
        layout = Layout(game)
        probs = layout.uniform_strategy()
        for label, row_probs in table.items():
            if label not in layout.label_index:
                raise BadParameter(f"no infoset {label!r} in {game.spec}")
            row = layout.label_index[label]
            actions = layout.action_labels[row]
            if isinstance(row_probs, dict):
                unknown = set(row_probs) - set(actions)
                if unknown:
                    raise BadParameter(f"infoset {label!r} has no action {sorted(unknown)[0]!r}")
                values = [float(row_probs.get(a, 0.0)) for a in actions]
            else:
                values = [float(x) for x in row_probs]
            if len(values) != len(actions) or min(values) < 0 or abs(sum(values) - 1) > 1e-9:
                raise BadParameter(f"infoset {label!r} needs {len(actions)} probabilities summing to 1")
            target = slice(None) if variant is None else variant
            probs[target, row, :] = 0.0
            probs[target, row, : len(values)] = values
        return cls(layout, probs)

    @property
    def game(self):
        return self.layout.game

    @property
    def evaluator(self) -> Evaluator:
        if self._evaluator is None:
            self._evaluator = Evaluator(self.layout, LocalShards(self.layout, self.game.default_shards))
        return self._evaluator

    # ---- lookup ---------------------------------------------------------------------------
    def labels(self) -> list[str]:
        """Every infoset label, player 1's first."""
        return list(self.layout.labels)

    def _row(self, label: str) -> int:
        try:
            return self.layout.label_index[label]
        except KeyError:
            raise BadParameter(f"no infoset {label!r} in {self.game.spec}") from None

    def action_probs(self, label: str, variant: int = 0) -> dict[str, float]:
        """Action label -> probability at one infoset (of one variant, e.g. one stack)."""
        row = self._row(label)
        actions = self.layout.action_labels[row]
        return {a: float(self.probs[variant, row, i]) for i, a in enumerate(actions)}

    def __getitem__(self, label: str) -> dict[str, float]:
        return self.action_probs(label)

    # ---- evaluation -------------------------------------------------------------------------
    @cached_property
    def best_response_per_variant(self) -> np.ndarray:
        """(2, B) best-response value of each player against this strategy."""
        return self.evaluator.best_response_values(self.probs)

    def best_response_values(self, variant: int = 0) -> tuple[float, float]:
        """(BR of player 1, BR of player 2), each in its own payoff, chips per game."""
        br = self.best_response_per_variant[:, variant]
        return float(br[0]), float(br[1])

    def exploitability_per_variant(self) -> np.ndarray:
        return self.best_response_per_variant.sum(axis=0) / 2

    def exploitability(self) -> float:
        """(BR_1 + BR_2) / 2 in chips per game (OpenSpiel convention); the largest over variants."""
        return float(self.exploitability_per_variant().max())

    @cached_property
    def value_per_variant(self) -> np.ndarray:
        return self.evaluator.value(self.probs)

    def value(self, variant: int = 0) -> float:
        """Player 1's expected payoff when both players follow this strategy."""
        return float(self.value_per_variant[variant])

    def head_to_head(self, other: Strategy, variant: int = 0) -> float:
        """Player 1's expected payoff with this strategy in seat 1 and ``other`` in seat 2."""
        if other.layout.game.spec != self.game.spec:
            raise BadParameter(f"strategies of different games: {self.game.spec} vs {other.game.spec}")
        return float(self.evaluator.head_to_head(self.probs, other.probs)[variant])

    def save(self, path) -> None:
        """Write as a msgpack strategy file (atomically)."""
        layout, meta = self.layout, self.meta
        write_strategy_file(path, game=self.game.spec, algorithm=meta.get("algorithm", ""), rule=meta.get("rule", {}),
                            iterations=int(meta.get("iterations", 0)), variants=list(self.game.variant_labels),
                            infosets=list(layout.labels), actions=layout.action_labels, probabilities=self.probs,
                            evaluation=meta.get("evaluation", {}))


def load_strategy(path) -> Strategy:
    """Read a strategy file back as a Strategy of its game; BadFile (one line) when it is not a
    strategy of the game it names (see the schema in distcfr.io.strategy_file)."""
    with open_strategy_file(path) as file:
        layout = game_layout(path, file.header["game"])
        fields = file.read(game_dims(layout))
    meta = {key: fields[key] for key in ("algorithm", "iterations", "rule", "evaluation")}
    if not file.checked:  # a file of an earlier version, written before files carried checksums
        meta["unchecked"] = file.version
    return Strategy(layout, fields["probabilities"], meta=meta)


def game_layout(path, spec: str, tables_only: bool = False) -> Layout:
    """The layout of the game a file names; BadFile when that game cannot be loaded, BadParameter
    when evaluating it in this process (``tables_only``: holding its tables) cannot fit."""
    try:
        game = load_game(spec)
    except DistcfrError as err:
        raise BadFile(f"{path}: its game {spec[:200]!r} cannot be loaded: {err}") from None
    problem = game.exact_size_problem()
    if problem:  # no exact run made this file; building the layout could take what the machine has
        raise BadFile(f"{path}: its game {game.spec} is not solved exactly: {problem}")
    # what evaluating it takes, from the game's sizes: refused here rather than while allocating
    memory = exact_estimate(game)
    check_fits(memory.coordinator if tables_only else memory.this_machine, f"{path}: its game {game.spec}")
    return Layout(game)

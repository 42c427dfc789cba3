"""The game interface every solver pass and evaluator works with.

A game is a two-player zero-sum card game whose public action tree does not depend on
the cards. It is given by:

* its public action tree (``actions`` and ``player`` per history, built once into a ``Tree``);
* its deals: every chance outcome, moved to the root, with a probability each;
* ``private_index``: vectorised over deals, the acting player's private information at a node
  (own cards, board cards already shown);
* ``observation``: the public part of what the acting player has seen (the action history,
  with an opponent's hidden choices reduced to what is visible, e.g. a draw *count*);
* ``utility``: vectorised over deals, player 1's payoff at a terminal, one row per variant
  (a game solved for several parameters at once, such as a list of stack sizes, has several
  variants sharing the tree and the deals).

An information set is a pair (observation, private information) of the acting player.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cached_property

import numpy as np

from distcfr.errors import BadParameter
from distcfr.games.spec import format_spec
from distcfr.games.tree import Tree, build_tree

History = tuple[str, ...]


class Game:
    """Base class of the games. Subclasses set ``name`` and ``Params`` and implement the rules."""

    name: str = ""

    @dataclasses.dataclass(frozen=True)
    class Params:
        pass

    def __init__(self, params: Params):
        self.params = params

    # ---- construction from a spec ----------------------------------------------------
    @classmethod
    def from_spec_params(cls, raw: dict[str, str]) -> Game:
        """Build the game from the string parameters of a spec, checking every one."""
        fields = {_spec_key(f): f for f in dataclasses.fields(cls.Params)}
        values = {}
        for key, text in raw.items():
            if key not in fields:
                known = ", ".join(fields) or "none"
                raise BadParameter(f"unknown parameter {key!r} for game {cls.name!r} (known: {known})")
            parse = fields[key].metadata.get("parse", _parser_for(fields[key].type))
            try:
                values[fields[key].name] = parse(text)
            except (TypeError, ValueError) as err:
                raise BadParameter(f"bad value {text!r} for {cls.name} parameter {key!r}: {err}") from None
        game = cls(cls.Params(**values))
        game.validate()
        return game

    def validate(self) -> None:
        """Raise BadParameter when the parameters describe an impossible game."""

    def exact_size_problem(self) -> str | None:
        """Why the exact solver cannot enumerate this game (None: it can). Games that can be
        sampled instead have a sampled kernel (distcfr.engine.kernels)."""
        return None

    def sampled_form(self) -> Game:
        """The game the sampled solver solves for this one: itself, or (nl27) the same game with the
        card abstraction its sampled kernel needs."""
        return self

    @property
    def spec(self) -> str:
        """The canonical spec string: the game name and its non-default parameters."""
        default = self.Params()
        changed = {}
        for f in dataclasses.fields(self.params):
            value = getattr(self.params, f.name)
            if value != getattr(default, f.name):
                changed[_spec_key(f)] = f.metadata.get("format", str)(value)
        return format_spec(self.name, changed)

    # ---- the rules ------------------------------------------------------------------
    def actions(self, history: History) -> Sequence[tuple[str, str]]:
        """(code, label) of each legal action at a public history; empty at a terminal."""
        raise NotImplementedError

    def player(self, history: History) -> int:
        """The player (0 or 1) who acts at a non-terminal history."""
        raise NotImplementedError

    def variant_legal(self, history: History) -> np.ndarray | None:
        """(n_variants, n_actions) bool: which actions of a decision each variant may take, for games
        whose variants share one tree that holds every variant's actions (nl27: a raise a small stack
        cannot make); None when every variant may take every action."""
        return None

    def observation(self, history: History, player: int) -> str:
        """What ``player`` has seen of the public history; equal strings share infosets."""
        return "".join(history)

    def deals(self) -> tuple[np.ndarray, np.ndarray]:
        """Every chance outcome: cards (n_deals, n_cards) int64 and probabilities (n_deals,)."""
        raise NotImplementedError

    @cached_property
    def cards_per_deal(self) -> int:
        """Columns of the ``deals`` array (games override this to avoid building them)."""
        return self.deals()[0].shape[1]

    def terminal_work_bytes(self, n_deals: int) -> int:
        """Bytes ``terminal_utilities`` needs beyond its result for ``n_deals`` deals."""
        return 0

    @cached_property
    def n_deals(self) -> int:
        """How many deals ``deals`` returns (games override this to avoid building them)."""
        return len(self.deals()[1])

    def private_labels(self, history: History, player: int) -> Sequence[str]:
        """Labels of the values ``private_index`` can take at this history."""
        raise NotImplementedError

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        """(n_deals,) int64: the acting player's private information at this history."""
        raise NotImplementedError

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        """(n_variants, n_deals) float64: player 1's payoff at a terminal history."""
        raise NotImplementedError

    def terminal_utilities(self, histories: Sequence[History], deals: np.ndarray) -> np.ndarray:
        """(n_terminals, n_variants, n_deals): ``utility`` of many terminals at once. Games whose
        terminals share expensive work (draw27's showdown equities) override this."""
        return np.stack([self.utility(h, deals) for h in histories])

    @property
    def variant_labels(self) -> tuple[str, ...]:
        """One label per variant (e.g. per stack size); one empty label for a plain game."""
        return ("",)

    @property
    def variant_values(self) -> tuple[float, ...] | None:
        """The numeric parameter each variant stands for (e.g. the stack), if any."""
        return None

    #: how the exact solver meets chance: "deals" (every chance outcome at the root, dense over
    #: (nodes, deals)) or "ranges" (per public node, a vector per player over its private states)
    exact_form: str = "deals"
    #: the update rule that reaches the default target fastest on this game (measured)
    default_algorithm: str = "dcfr"
    #: exploitability a plain ``python -m distcfr.train`` run stops at, in ``unit``
    default_target: float = 1e-4
    #: what payoffs are counted in: "chips" per game, or "BB" (big blinds) per hand
    unit: str = "chips"
    #: what the two seats are called where values are printed (values are the first seat's)
    seats: tuple[str, str] = ("player 1", "player 2")

    def tables(self, strategy, variant: int) -> list:
        """The strategy tables (``distcfr.games.table.Table``) of one variant the way this game's
        players read them; ``strategy.action_probs(label, variant)`` gives any infoset's row."""
        return []

    def summary_tables(self, strategy) -> list:
        """Tables across every variant at once (e.g. push / call per stack), printed instead of each
        variant's full tables when a strategy has several variants; none by default."""
        return []

    def with_variant_values(self, values) -> Game:
        """The same game solved for other variant values (e.g. other stacks)."""
        raise NotImplementedError(f"{self.name} has no variant parameter")

    @property
    def default_shards(self) -> int:
        """How many shards the deals are cut into unless the user says otherwise."""
        return 1

    @cached_property
    def tree(self) -> Tree:
        return build_tree(self)

    def __repr__(self) -> str:
        return f"<game {self.spec}>"


def _spec_key(field: dataclasses.Field) -> str:
    """The name a parameter has in a spec (``raise``, a Python keyword, is the field ``raise_``)."""
    return field.metadata.get("key", field.name)


def _parser_for(kind):
    kinds = {"int": int, "float": float, "str": str, int: int, float: float, str: str}
    return kinds.get(kind, str)

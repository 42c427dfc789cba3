"""The registry of games: a new game is one module plus one line here."""

from __future__ import annotations

from distcfr.errors import UnknownGame
from distcfr.games.base import Game
from distcfr.games.community13 import Community13
from distcfr.games.draw27 import Draw27
from distcfr.games.kuhn import Kuhn
from distcfr.games.leduc import Leduc
from distcfr.games.minipoker import MiniPoker
from distcfr.games.nl27 import Nl27
from distcfr.games.spec import parse_spec

REGISTRY: dict[str, type[Game]] = {cls.name: cls for cls in (Kuhn, Leduc, Community13, MiniPoker, Draw27, Nl27)}


def register(cls: type[Game]) -> type[Game]:
    """Add a game class to the registry (usable as a decorator)."""
    REGISTRY[cls.name] = cls
    return cls


def load_game(spec: str) -> Game:
    """The game named by ``spec``: ``"leduc"`` or ``"draw27(ranks=13,suits=1,hand=1,stacks=3)"``."""
    name, params = parse_spec(spec)
    if name not in REGISTRY:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(sorted(REGISTRY))})")
    return REGISTRY[name].from_spec_params(params)


def defaults_help() -> str:
    """Each game's default stopping target and update rule, for the CLI's help."""
    return "; ".join(f"{name}: {cls.default_target:g}{' BB' if cls.unit == 'BB' else ''} with {cls.default_algorithm}"
                     for name, cls in REGISTRY.items())

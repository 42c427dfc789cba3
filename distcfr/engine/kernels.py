"""Which kernels can solve a game. Every game is solved exactly by the enumerating kernel
(``CFRKernel`` over its deals); a game whose chance can also be sampled names its sampled kernel
here, so a second sampled game is one line in ``SAMPLED`` plus its kernel module.

Sampled kernels are built once per process and configuration (building one enumerates every
hand of the deck into its suit-isomorphic classes)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from distcfr.errors import BadParameter
from distcfr.games.base import Game


def _sampled_draw27(game: Game):
    from distcfr.engine.sampled_draw27 import SampledDraw27

    p = game.params
    return SampledDraw27(p.ranks, p.suits, p.hand, p.stacks)


def _sampled_nl27(game: Game):
    from distcfr.engine.sampled_nl27 import SampledNl27

    return SampledNl27(game)


SAMPLED: dict[str, Callable[[Game], object]] = {"draw27": _sampled_draw27, "nl27": _sampled_nl27}  # name -> kernel


def can_sample(game: Game) -> bool:
    """Whether ``game`` has a sampled kernel."""
    return game.name in SAMPLED


def sampled_kernel(game: Game):
    """The sampled kernel of ``game`` (one per configuration and process); BadParameter when the
    game has none."""
    if not can_sample(game):
        raise BadParameter(f"{game.name} cannot be solved by sampling (games with a sampled kernel: "
                           f"{', '.join(SAMPLED)})")
    return _kernel(game.spec)


@lru_cache(maxsize=4)
def _kernel(spec: str):
    from distcfr.games.registry import load_game

    game = load_game(spec)
    return SAMPLED[game.name](game)

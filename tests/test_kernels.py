"""Which kernels can solve a game (distcfr.engine.kernels)."""

import pytest

import distcfr
from distcfr.engine import kernels
from distcfr.engine.kernels import can_sample, sampled_kernel
from distcfr.errors import BadParameter
from distcfr.games.hand_classes import hand_classes


def test_only_games_with_a_sampled_kernel_can_be_sampled():
    assert can_sample(distcfr.load_game("draw27(ranks=6,suits=2,hand=2)"))
    for name in ("kuhn", "leduc", "minipoker", "community13"):
        assert not can_sample(distcfr.load_game(name))
    with pytest.raises(BadParameter, match="leduc cannot be solved by sampling"):
        sampled_kernel(distcfr.load_game("leduc"))


def test_a_configurations_kernel_and_hand_classes_are_built_once_per_process():
    spec = "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)"
    # from empty caches: both keep 4 entries, games and decks apart, so a kernel an earlier test in this
    # process built may outlive its deck's cached classes
    kernels._kernel.cache_clear()
    hand_classes.cache_clear()
    first = sampled_kernel(distcfr.load_game(spec))
    assert sampled_kernel(distcfr.load_game(spec)) is first
    assert first.classes is hand_classes(6, 2, 2)  # another stack list shares the deck's classes
    assert sampled_kernel(distcfr.load_game("draw27(ranks=6,suits=2,hand=2,stacks=5)")).classes is first.classes
    assert list(first.stacks) == [2.0, 3.0] and first.n_classes == first.classes.n_classes

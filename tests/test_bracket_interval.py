"""The sampled bracket's interval is an interval: its lower end never above its upper end, its upper
estimate (the exploitability printed) never below 0, however near pure the strategy and however its
float16 probabilities round (distcfr.engine.sampled_bracket.no_worse_than_profile)."""

import numpy as np
import pytest

from distcfr.engine.sampled_bracket import best_response, bracket_chunk
from distcfr.engine.sampled_draw27 import SampledDraw27
from distcfr.evaluate.sampled import exploitability_bracket
from distcfr.games.registry import load_game
from distcfr.solve.sampled_solver import SampledSolver


def near_pure(game: SampledDraw27, seed: int) -> dict[str, np.ndarray]:
    """A strategy near a pure equilibrium as a long run's average is: each player's rows a best response
    (on many deals) to a random pure strategy, then all but a few ten-thousandths of each row on its
    action, stored as float16 (a row's probabilities then sum to a little more or less than one)."""
    rng = np.random.default_rng(seed)
    pure = {b.name: (rng.integers(0, b.n_actions, (game.n_classes, *b.shape[:-1]))[..., None]
                     == np.arange(b.n_actions)).astype(np.float64) for b in game.strategy_tables}
    for player in (0, 1):
        best_response(game, pure, game.sample_deals_of_classes(seed, 2, player, 0, game.n_classes, 400), player)
    tables = {}
    for name, rows in pure.items():
        rest = rng.uniform(0, 6e-4, rows.shape) * (rng.uniform(size=rows.shape) < 0.5)
        rows = np.where(rows > 0, 1.0, rest)
        tables[name] = (rows / rows.sum(-1, keepdims=True)).astype(np.float16)
    return tables


def assert_an_interval(bracket) -> None:
    low, high = bracket.interval()
    assert (bracket.high >= 0).all(), bracket.high  # the exploitability printed
    assert (0 <= low).all() and (low <= high).all(), (low, high)
    assert np.isfinite(bracket.high_se).all() and np.isfinite(bracket.low_se).all()


def test_the_run_that_printed_an_upper_end_below_the_lower_one_prints_an_interval():
    # python -m distcfr.train --game "draw27(ranks=7,suits=2,hand=2,stacks=3)" --sampling --seed 11 \
    #     --iterations 400 --batch 2000: its final bracket had 553 deals per class and printed
    #     the interval [1.28e-07, -5.89e-07] BB, an exploitability of -5.9e-07
    solver = SampledSolver(load_game("draw27(ranks=7,suits=2,hand=2,stacks=3)"), batch=2000, seed=11)
    solver.solve(400)
    bracket = solver.bracket(553)
    assert_an_interval(bracket)
    # the strategy is this near pure: its exploitability is that of a few float16 roundings
    assert bracket.interval()[1].max() < 1e-6


@pytest.mark.parametrize("dims", [(6, 2, 2), (7, 2, 2), (8, 2, 3)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_near_pure_strategy_has_an_interval_and_gains_nothing_below_zero_in_sample(dims, seed):
    game = SampledDraw27(*dims, stacks=(2.0, 3.0))
    tables = near_pure(game, seed)
    for player in (0, 1):  # each class's in-sample gain, in the player's own payoff, is at least 0
        gains = np.array([bracket_chunk(game, tables, seed, 40, player, c, c + 1).sums.high
                          for c in range(min(60, game.n_classes))])  # (classes, B)
        assert ((1 - 2 * player) * gains >= 0).all(), (player, gains)
    assert_an_interval(exploitability_bracket(game, tables, seed, 40, rounds=1, focus_share=2))


def test_a_lower_end_that_noise_lifts_above_the_upper_one_is_held_at_it():
    from distcfr.evaluate.sampled import Bracket

    se = np.array([0.01, 0.01])
    bracket = Bracket(np.array([0.5, 0.1]), se, np.array([0.2, 0.3]), se, np.zeros(2), se, per_class=10)
    low, high = bracket.interval()
    assert np.array_equal(high, bracket.high + 1.96 * se)
    assert low[0] == high[0] and low[1] == 0.1 - 1.96 * 0.01  # crossed: the upper end; else the lower estimate's

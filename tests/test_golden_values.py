"""Known values from the literature and OpenSpiel's tests, reached by the engine."""

import numpy as np
import pytest

import distcfr
from distcfr.evaluate.strategy import Strategy


def uniform(game):
    return distcfr.Solver(game).current_strategy()


def first_action(game):
    solver = distcfr.Solver(game)
    probs = np.zeros_like(solver.sigma)
    probs[..., 0] = 1.0
    return Strategy(solver.layout, probs)


# OpenSpiel exploitability_test.py: NashConv of the uniform policy is 11/12 on Kuhn and
# 4.747222222222222 on Leduc; the "always first action" policy has NashConv 2 on both.
@pytest.mark.parametrize("spec, nash_conv", [("kuhn", 11 / 12), ("leduc", 4.747222222222222)])
def test_uniform_nash_conv(spec, nash_conv):
    assert 2 * uniform(distcfr.load_game(spec)).exploitability() == pytest.approx(nash_conv, abs=1e-12)


@pytest.mark.parametrize("spec", ["kuhn", "leduc"])
def test_first_action_nash_conv_is_two(spec):
    assert 2 * first_action(distcfr.load_game(spec)).exploitability() == pytest.approx(2.0, abs=1e-12)


def kuhn_equilibrium(alpha: float) -> dict:
    """Kuhn 1950's family of equilibria: player 1 bluffs J with alpha in [0, 1/3]."""
    return {
        "J|": [1 - alpha, alpha], "Q|": [1, 0], "K|": [1 - 3 * alpha, 3 * alpha],
        "J|pb": [1, 0], "Q|pb": [1 - (alpha + 1 / 3), alpha + 1 / 3], "K|pb": [0, 1],
        "J|p": [2 / 3, 1 / 3], "Q|p": [1, 0], "K|p": [0, 1],
        "J|b": [1, 0], "Q|b": [2 / 3, 1 / 3], "K|b": [0, 1],
    }


@pytest.mark.parametrize("alpha", [0.0, 0.2, 1 / 3])
def test_known_kuhn_equilibrium_is_unexploitable(kuhn, alpha):
    strategy = Strategy.from_dict(kuhn, kuhn_equilibrium(alpha))
    assert abs(strategy.exploitability()) < 1e-12
    assert strategy.value() == pytest.approx(-1 / 18, abs=1e-12)  # Kuhn 1950
    br1, br2 = strategy.best_response_values()
    assert br1 == pytest.approx(-1 / 18, abs=1e-12) and br2 == pytest.approx(1 / 18, abs=1e-12)


def test_kuhn_solved_value(kuhn):
    strategy = distcfr.Solver(kuhn, algorithm="dcfr").solve(target_exploitability=1e-5)
    assert strategy.exploitability() <= 1e-5
    assert strategy.value() == pytest.approx(-1 / 18, abs=1e-4)


def test_leduc_solved_value(leduc):
    # -0.0856064 (OpenSpiel cfr_test / the literature's Leduc game value for player 1)
    strategy = distcfr.Solver(leduc, algorithm="dcfr").solve(target_exploitability=1e-5)
    assert strategy.exploitability() <= 1e-5
    assert strategy.value() == pytest.approx(-0.0856064, abs=1e-4)
    br1, br2 = strategy.best_response_values()
    assert br1 >= strategy.value() - 1e-12 and -br2 <= strategy.value() + 1e-12
    assert -br2 - 1e-6 <= -0.0856064 <= br1 + 1e-6  # best responses bracket the game value

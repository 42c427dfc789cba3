"""nl27's range-form solver against the independent oracle (tests/nl27_oracle.py: the explicit tree
with the stub as chance nodes, exact values by a sequence-form LP): the uniform profile's value and
best responses to 1e-9, and the game value within the solved strategy's exploitability bound, on
configurations that differ in deck (ties, 2-card hands), stack, sizes and limping."""

import pytest

import distcfr
from distcfr.engine.layout import Layout

oracle = pytest.importorskip("nl27_oracle")  # tests/ is on the path (pytest's rootdir insertion)

CONFIGS = [
    ("nl27(ranks=4,suits=1,hand=1,stacks=3)", oracle.Config(4, 1, 1, 3.0)),
    ("nl27(ranks=5,suits=1,hand=1,stacks=6,open=2.5/4,limp=0)",
     oracle.Config(5, 1, 1, 6.0, open=(2.5, 4.0), limp=False)),
    ("nl27(ranks=3,suits=2,hand=1,stacks=4,bet=1,cap=2)", oracle.Config(3, 2, 1, 4.0, bet=(1.0,), cap=2)),
    ("nl27(ranks=4,suits=2,hand=2,stacks=3,bet=1,cap=1)", oracle.Config(4, 2, 2, 3.0, bet=(1.0,), cap=1)),
]


@pytest.mark.parametrize("spec, config", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_uniform_profile_values_equal_the_oracle(spec, config):
    layout = Layout(distcfr.load_game(spec))
    uniform = distcfr.Strategy(layout, layout.uniform_strategy())
    expected = oracle.uniform_values(config)
    br_button, br_big_blind = uniform.best_response_values()
    assert uniform.value() == pytest.approx(expected["value"], abs=1e-9)
    assert br_button == pytest.approx(expected["br_button"], abs=1e-9)
    assert br_big_blind == pytest.approx(expected["br_big_blind"], abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("spec, config", CONFIGS[:3], ids=[c[0] for c in CONFIGS[:3]])
def test_the_game_value_equals_the_oracles_lp(spec, config):
    strategy = distcfr.Solver(distcfr.load_game(spec)).solve(iterations=600)
    bound = 2 * strategy.exploitability()  # |value(sigma) - game value| <= BR_1 + BR_2
    assert bound < 3e-3
    assert strategy.value() == pytest.approx(oracle.game_value(config), abs=bound + 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("spec, value", [
    ("nl27(ranks=13,suits=1,hand=1,stacks=10)", 0.087042854044),  # the write-up's deck: the oracle's LP, 143 CPU-s
    ("nl27(ranks=3,suits=2,hand=1,stacks=5)", -2 / 63),  # ties: the oracle's LP gives -0.031746031746
])
def test_golden_values_from_the_oracles_lp(spec, value):
    strategy = distcfr.Solver(distcfr.load_game(spec)).solve(iterations=1000)
    bound = 2 * strategy.exploitability()
    assert bound < 1e-3
    assert strategy.value() == pytest.approx(value, abs=bound + 1e-9)

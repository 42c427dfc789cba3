"""Simulated matches (distcfr.evaluate.simulate) against the exact head-to-head values, and
python -m distcfr.match end to end with its bad-input errors."""

import json

import numpy as np
import pytest

import distcfr
from distcfr.evaluate.simulate import SimulationResult, play, seat_profile, simulate
from distcfr.match import main

SOLVED = {}


def solved(spec, iterations):
    key = (spec, iterations)
    if key not in SOLVED:
        SOLVED[key] = distcfr.Solver(distcfr.load_game(spec), algorithm="cfr").solve(iterations=iterations)
    return SOLVED[key]


@pytest.mark.parametrize("spec, first, second", [
    ("community13", 50, 3),
    ("leduc", 30, 2),
    ("minipoker", 40, 1),
    ("draw27(ranks=8,suits=1,hand=2,stacks=2:4:1)", 20, 2),
])
def test_exact_value_inside_the_simulated_999_interval(spec, first, second):
    a, b = solved(spec, first), solved(spec, second)
    for v in range(len(a.game.variant_labels)):
        for x, y in ((a, b), (b, a)):
            sim = simulate(a.layout, x.probs, y.probs, 200_000, seed=11, variant=v)
            low, high = sim.interval(0.999)
            assert low <= x.head_to_head(y, v) <= high
            assert 0 < sim.stderr < 0.05


def test_same_seed_same_result_and_deterministic_profiles_are_exact():
    game = distcfr.load_game("kuhn")
    s = solved("kuhn", 20)
    assert simulate(s.layout, s.probs, s.probs, 1000, seed=3) == simulate(s.layout, s.probs, s.probs, 1000, seed=3)
    # everyone always takes the first action (check, check): a showdown for 1 on every deal
    first = np.zeros_like(s.probs)
    first[..., 0] = 1.0
    deals = np.array([[0, 1], [2, 1], [1, 0]])
    payoff = play(s.layout, seat_profile(s.layout, first, first), deals, np.random.default_rng(0))
    assert payoff.tolist() == [-1.0, 1.0, 1.0]
    assert game.spec == "kuhn"


def test_a_zero_probability_action_is_never_sampled():
    s = solved("leduc", 5)
    probs = np.zeros_like(s.probs)
    for row, actions in enumerate(s.layout.action_labels):  # always check or call: no fold, no raise
        probs[:, row, actions.index("call" if "call" in actions else "check")] = 1.0
    deals = s.layout.deals[0][np.random.default_rng(0).integers(120, size=5000)]
    payoff = play(s.layout, probs, deals, np.random.default_rng(1))
    assert set(np.abs(payoff)) <= {0.0, 1.0}  # only check-down showdowns for the ante


def test_combined_seats():
    a, b = SimulationResult(100, 0.5, 0.1), SimulationResult(100, -0.3, 0.1)
    both = SimulationResult.combine(a, b)
    assert both.mean == pytest.approx(0.4) and both.stderr == pytest.approx(0.1 * 2 ** 0.5 / 2)
    assert both.games == 200


def test_match_prints_and_writes_exact_and_simulated_values(tmp_path, capsys):
    strategy = solved("kuhn", 200)
    path = tmp_path / "kuhn.msgpack"
    strategy.save(path)
    out = tmp_path / "match.json"
    assert main([str(path), "random", "--games", "20000", "--seed", "5", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "exact" in printed and "simulated" in printed and "over both seats" in printed
    data = json.loads(out.read_text())
    assert data["game"] == "kuhn" and len(data["seats"]) == 2
    uniform = distcfr.Strategy(strategy.layout, strategy.layout.uniform_strategy())
    exact = (strategy.head_to_head(uniform) - uniform.head_to_head(strategy)) / 2
    assert data["exact_ev"] == pytest.approx(exact, abs=1e-12)
    low, high = data["ci95"]
    assert low < data["simulated_ev"] < high and data["seats"][0]["exact_ev"] == pytest.approx(
        strategy.head_to_head(uniform), abs=1e-12)
    # exact only without --games; a fresh solve as a player
    assert main(["--game", "kuhn", "train:50:cfr+", "random", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert "exact_ev" in data and "simulated_ev" not in data


SMALL = "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)"


def sampled_solve(tmp_path):
    from distcfr.solve.sampled_solver import SampledSolver

    with SampledSolver(distcfr.load_game(SMALL), batch=300, seed=1, shards=1) as solver:
        strategy = solver.solve(iterations=5)
    path = tmp_path / "sampled.msgpack"
    strategy.save(path)
    return path, strategy


def test_sampled_simulation_agrees_with_the_exact_game(tmp_path):
    from distcfr.evaluate.simulate import simulate_sampled

    _, sampled = sampled_solve(tmp_path)
    exact = sampled.to_exact()
    uniform = distcfr.Strategy(exact.layout, exact.layout.uniform_strategy())
    kernel = sampled.kernel
    for first, second, a, b in ((sampled.tables, kernel.uniform(), exact, uniform),
                                (kernel.uniform(), sampled.tables, uniform, exact)):
        for v, sim in enumerate(simulate_sampled(kernel, first, second, 100_000, seed=3)):
            low, high = sim.interval(0.999)
            assert low <= a.head_to_head(b, v) <= high


def test_sampled_file_where_the_game_is_small_gets_exact_values(tmp_path):
    from distcfr.evaluate.class_strategy import load_class_strategy

    path, _ = sampled_solve(tmp_path)
    out = tmp_path / "m.json"
    assert main([str(path), "random", "--json", str(out)]) == 0
    exact = load_class_strategy(path).to_exact()  # the file's float16 tables
    uniform = distcfr.Strategy(exact.layout, exact.layout.uniform_strategy())
    seats = json.loads(out.read_text())["seats"]
    assert [row["variant"] for row in seats] == ["2BB", "2BB", "3BB", "3BB"]
    assert seats[2]["exact_ev"] == pytest.approx(exact.head_to_head(uniform, 1), abs=1e-9)


def test_a_game_too_large_to_enumerate_is_only_simulated(monkeypatch, capsys, tmp_path):
    from distcfr.games.draw27 import Draw27

    path, _ = sampled_solve(tmp_path)
    monkeypatch.setattr(Draw27, "exact_size_problem", lambda self: "too large here")
    out = tmp_path / "m.json"
    assert main([str(path), "random", "--games", "5000", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    for row in data["seats"] + data["both_seats"]:
        assert "exact_ev" not in row and row["ci95"][0] < row["simulated_ev"] < row["ci95"][1]
    assert "too large to enumerate" in capsys.readouterr().out
    assert main([str(path), "random"]) == 2
    assert "--games" in capsys.readouterr().err
    assert main([str(path), "train:5", "--games", "100"]) == 2
    assert "--sampling" in capsys.readouterr().err


def _bad_cases(tmp_path):
    kuhn = tmp_path / "kuhn.msgpack"
    solved("kuhn", 5).save(kuhn)
    leduc = tmp_path / "leduc.msgpack"
    solved("leduc", 2).save(leduc)
    return [
        (["--game", "kuhn", "robot", "random"], "no such strategy file"),
        (["--game", "kuhn", "train:ten", "random"], "train:ITERS"),
        (["--game", "kuhn", "train:10:cfr++", "random"], "unknown algorithm"),
        (["--game", "kuhn", "train:0", "random"], "train:ITERS"),
        ([str(kuhn), str(leduc)], "the match is kuhn"),
        (["--game", "leduc", str(kuhn), "random"], "the match is leduc"),
        (["random", "random"], "give --game"),
        (["--game", "kuhn", "random", "random", "--games", "1"], "at least 2"),
        (["--game", "kuhn", "random", "random", "--games", "many"], "not a whole number"),
        (["--game", "chess", "random", "random"], "unknown game"),
        (["--game", "kuhn", "random", "random", "--json", "/no/such/dir/m.json"], "does not exist"),
    ]


def test_match_bad_input_is_one_line_exit_2(tmp_path, capsys):
    for argv, message in _bad_cases(tmp_path):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, err)

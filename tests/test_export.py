"""Strategy exports (distcfr.evaluate.export) and python -m distcfr.show --format."""

import json

import numpy as np
import pytest

import distcfr
from distcfr.evaluate.export import json_table, openspiel_policy, openspiel_table
from distcfr.show import main

SOLVED = {}


def solved(spec, target):
    if spec not in SOLVED:
        SOLVED[spec] = distcfr.Solver(distcfr.load_game(spec)).solve(target_exploitability=target)
    return SOLVED[spec]


def test_json_table_is_every_row():
    s = solved("kuhn", 1e-4)
    table = json_table(s)
    assert list(table) == s.labels() and table["K|b"] == s["K|b"]
    multi = distcfr.Solver(distcfr.load_game("draw27(stacks=2:3:1)")).solve(iterations=20)
    table = json_table(multi)
    assert list(table) == ["2BB", "3BB"] and table["3BB"]["7|"] == multi.action_probs("7|", 1)


@pytest.mark.parametrize("spec, states, actions", [("kuhn", 12, 2), ("leduc", 936, 3)])
def test_openspiel_table_without_openspiel(spec, states, actions):
    s = solved(spec, 1e-4)
    data = openspiel_table(s)
    assert data["game"] == f"{spec}_poker" and len(data["policy"]) == states
    rows = np.array(list(data["policy"].values()))
    assert rows.shape == (states, actions) and np.allclose(rows.sum(axis=1), 1) and (rows >= 0).all()
    if spec == "kuhn":  # card 2 (king) facing a bet after a check
        assert data["policy"]["2pb"] == [s["K|pb"]["fold"], s["K|pb"]["call"]]
    else:  # a queen (card 2 or 3) after raise-call, with a king (card 4 or 5) on board, round 2 opening
        info = "[Observer: 0][Private: 3][Round 2][Player: 0][Pot: 6][Money: 97 97][Public: 4][Round1: 2 1][Round2: ]"
        assert data["policy"][info] == [0.0, s["Q/K|rc."]["check"], s["Q/K|rc."]["bet"]]


def test_openspiel_export_only_for_kuhn_and_leduc():
    with pytest.raises(distcfr.BadParameter, match="OpenSpiel export"):
        openspiel_table(distcfr.Solver(distcfr.load_game("minipoker(ranks=3)")).average_strategy())


@pytest.mark.parametrize("spec", ["kuhn", "leduc"])
def test_openspiel_exploitability_equals_distcfr(spec, tmp_path):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.policy import python_policy_to_pyspiel_policy

    s = solved(spec, 1e-4)
    path = tmp_path / "policy.json"
    assert main([_saved(s, tmp_path), "--format", "openspiel", "--out", str(path)]) == 0
    policy = openspiel_policy(str(path))
    game = pyspiel.load_game(f"{spec}_poker")
    assert set(policy.state_lookup) == set(json.loads(path.read_text())["policy"])  # every state, no other
    ours = s.exploitability()
    assert abs(exploitability.exploitability(game, policy) - ours) < 1e-9
    assert abs(pyspiel.exploitability(game, python_policy_to_pyspiel_policy(policy)) - ours) < 1e-9
    assert abs(exploitability.nash_conv(game, policy) - 2 * ours) < 1e-9


def _saved(strategy, tmp_path):
    path = tmp_path / f"{strategy.game.name}.msgpack"
    strategy.save(path)
    return str(path)


def test_show_formats(tmp_path, capsys):
    s = solved("kuhn", 1e-4)
    path = _saved(s, tmp_path)
    assert main([path]) == 0
    assert "exploitability" in capsys.readouterr().out
    assert main([path, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == json_table(s)
    assert main([path, "--format", "openspiel"]) == 0
    assert json.loads(capsys.readouterr().out) == openspiel_table(s)
    out = tmp_path / "table.txt"
    assert main([path, "--out", str(out), "--against", path]) == 0
    assert "as player 1 vs" in out.read_text()


def test_show_bad_input_is_one_line_exit_2(tmp_path, capsys):
    path = _saved(solved("kuhn", 1e-4), tmp_path)
    minipoker = _saved(distcfr.Solver(distcfr.load_game("minipoker(ranks=3)")).average_strategy(), tmp_path)
    for argv, message in [
        ([str(tmp_path / "missing.msgpack")], "missing.msgpack"),
        ([path, "--format", "csv"], "invalid choice"),
        ([minipoker, "--format", "openspiel"], "OpenSpiel export is for"),
        ([path, "--format", "json", "--against", path], "--against goes with --format table"),
        ([path, "--against", minipoker], "different games"),
        ([path, "--out", "/no/such/dir/x.json"], "does not exist"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, (argv, err)

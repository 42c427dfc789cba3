"""python -m distcfr.seeds: every write-up runs (quick settings) and its numbers satisfy exact
relations; the CLI's names, aliases, files and errors."""

import json

import pytest

from distcfr.seeds import ALIASES, SEEDS, main, run

REPORTS = {}


def report(name):
    if name not in REPORTS:
        REPORTS[name] = run(name, quick=True, games=20_000)
    return REPORTS[name]


def test_kuhn_cfr():
    data = report("kuhn_cfr").data
    assert abs(data["player2_value"] - 1 / 18) <= 2 * data["exploitability"]
    for row in data["per_rule"].values():
        assert row["exploitability"] >= 0 and -2 <= row["value"] <= 2
        # player 1's family parameter: in [0, 1/3], read the same three ways near an equilibrium
        alphas = [row["alpha_from_jack_bet"], row["alpha_from_king_bet"], row["alpha_from_queen_call"]]
        assert -1e-2 <= min(alphas) and max(alphas) <= 1 / 3 + 1e-2 and max(alphas) - min(alphas) < 1e-2
    pair = data["pair"]
    assert abs(pair["head_to_head"] + 1 / 18) <= pair["bound"]
    for matrix in (data["player1_matrix"], data["player2_matrix"]):
        for row in matrix:
            assert row[0] + row[1] == pytest.approx(1) and row[2] + row[3] == pytest.approx(1)


def test_minipoker_annealing():
    data = report("minipoker_annealing").data
    value = data["game_value"]
    assert data["equilibrium"]["nash_conv"] < 1e-5
    for scored in data["tables"].values():
        br1, br2 = scored["best_response"]
        assert scored["nash_conv"] == pytest.approx(br1 + br2) and scored["nash_conv"] > 0.01
        assert -br2 - 1e-5 <= value <= br1 + 1e-5  # a best response never does worse than the game value
        assert -br2 <= scored["value"] <= br1 and -4 <= scored["value"] <= 4
    text = report("minipoker_annealing").markdown
    assert "Best Strategy for A (First to act):" in text and "Call Raise:" in text


def test_simplified13_cfr():
    r = report("simplified13_cfr")
    data = r.data
    assert data["distcfr_iterations"] == {"Rand": 0, "CFR1": 1, "CFR2": 6, "CFR3": 583}
    for b in data["boards"].values():
        for bot in b["bots"].values():
            assert bot["nash_conv"] >= 0 and -2 <= bot["value"] <= 2
        for cell, sim in b["simulated"].items():
            assert -2 <= sim["simulated_ev"] <= 2
            assert abs(sim["simulated_ev"] - b["exact"][cell]) < 5 * sim["stderr"]
        assert b["exact"]["Rand vs Rand"] == pytest.approx(0.125)
        cfr3 = b["bots"]["CFR3"]
        gap = abs(b["exact"]["CFR3 vs CFR3"] - b["game_value"])
        assert gap <= cfr3["nash_conv"] + 2 * b["game_value_exploitability"]
    assert data["best_fit"] in data["fit"] and "Which board" in r.markdown


def test_pushfold_2to7():
    data = report("pushfold_2to7").data
    assert 0 <= data["exploitability"] < 1e-6 and -0.5 <= data["value"] <= 3
    at3 = next(row for row in data["curve"] if row["stack"] == 3)
    assert abs(at3["value"] - data["value"]) <= 2 * (at3["exploitability"] + data["exploitability"])
    for row in data["curve"]:
        assert row["exploitability"] >= 0 and -0.5 <= row["value"] <= row["stack"]
    assert len(data["break_even"]) == 1 and 3.5 < data["break_even"][0] < 4.5  # the write-up: about 3.9
    assert data["infosets"]["2_rr"]["ALL_IN"] == pytest.approx(1, abs=1e-3)
    assert set(data["infosets"]["7_rraa1"]) == {"0", "1"}
    betting = data["with_betting"]
    for row in betting["curve"]:  # the button may still just shove or fold: betting never lowers its value
        slack = 2 * (row["exploitability_push_fold"] + row["exploitability_betting"])
        assert row["betting"] >= row["push_fold"] - slack and row["exploitability_betting"] <= 1e-3
    assert betting["negative_at"] == [row["stack"] for row in betting["curve"] if row["betting"] < 0]
    shares = betting["opening_shares"]["20"]
    assert set(shares) == {"fold", "limp", "open 2.5", "all-in"} and sum(shares.values()) == pytest.approx(1)


def test_the_betting_plot_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    from distcfr.present.plots import save_betting_plot

    save_betting_plot(tmp_path / "v.png", report("pushfold_2to7").data["with_betting"])
    assert (tmp_path / "v.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    js, md = tmp_path / "k.json", tmp_path / "k.md"
    assert main(["kuhn", "--quick", "--json", str(js), "--markdown", str(md)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(js.read_text())
    assert list(data) == ["kuhn_cfr"] and md.read_text() in printed + "\n"
    assert "1/18" in md.read_text()


def test_help_lists_the_write_ups(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for name in [*SEEDS, *ALIASES]:
        assert name in text
    assert "[]" not in text


def test_bad_input_is_one_line_exit_2(capsys, tmp_path):
    for argv, message in [(["poker"], "unknown write-up 'poker'"), (["kuhn", "--games", "0"], "at least 2"),
                          (["kuhn", "--json", "/no/such/dir/x.json"], "does not exist")]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1

"""python -m distcfr.compare: a PNG and one curve per rule."""

import json

import pytest

from distcfr.compare import OPENSPIEL_LINE, main, race


def test_compare_writes_png_and_one_curve_per_rule(tmp_path):
    pytest.importorskip("matplotlib")
    png, js = tmp_path / "c.png", tmp_path / "c.json"
    assert main(["--game", "kuhn", "--algorithms", "pcfr+,cfr,dcfr", "--seconds", "0.2", "--plot", str(png),
                 "--json", str(js)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    curves = json.loads(js.read_text())["curves"]
    rules = [name for name in curves if name != OPENSPIEL_LINE]
    assert rules == ["pcfr+", "cfr", "dcfr"]
    for curve in curves.values():
        n = len(curve["iterations"])
        assert n >= 2 and len(curve["seconds"]) == len(curve["exploitability"]) == n
        assert curve["iterations"] == sorted(curve["iterations"]) and curve["seconds"] == sorted(curve["seconds"])
        assert min(curve["exploitability"]) >= 0


def test_without_plot_it_prints_the_table_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--game", "kuhn", "--algorithms", "pcfr+,cfr", "--seconds", "0.05", "--no-openspiel"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0].strip() for line in lines] == ["pcfr+", "cfr"]
    assert all("iterations in" in line and "exploitability" in line for line in lines)
    assert list(tmp_path.iterdir()) == []


def test_race_excludes_evaluation_time():
    import time

    steps = []
    curve = race(lambda: steps.append(1), lambda: time.sleep(0.01) or 1.0, seconds=0.001, max_iterations=50)
    assert curve["seconds"][-1] < 0.01 * len(curve["iterations"])  # the sleeping evaluations are not counted
    assert curve["iterations"][-1] == len(steps)


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    png = str(tmp_path / "c.png")
    for argv, message in [(["--algorithms", "cfr,foo", "--plot", png], "unknown algorithm 'foo'"),
                          (["--algorithms", "cfr,cfr", "--plot", png], "twice"),
                          (["--seconds", "0", "--plot", png], "positive"),
                          (["--game", "chess", "--plot", png], "unknown game"),
                          (["--plot", "/no/such/dir/c.png"], "does not exist"),
                          (["--json", "/no/such/dir/c.json"], "does not exist")]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1

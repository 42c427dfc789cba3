"""The memory estimate against what a solve really allocates, and the refusal of what cannot fit."""

import tracemalloc

import pytest

import distcfr
from distcfr.engine.layout import Layout
from distcfr.engine.memory import PROCESS_BASE, estimate
from distcfr.train import main


@pytest.mark.parametrize("spec, shards", [("leduc", 1), ("draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)", 4),
                                          ("draw27(ranks=7,suits=2,hand=2,stacks=1.5:4:0.5)", 3)])
def test_estimate_matches_the_traced_peak(spec, shards):
    game = distcfr.load_game(spec)
    predicted = estimate(Layout(game), shards, 0).this_machine
    tracemalloc.start()
    try:
        solver = distcfr.Solver(game, shards=shards, algorithm="pcfr+")
        for _ in range(3):
            solver.step()
        solver.average_strategy().exploitability()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # every array the solve allocates is counted: within 15%, or within the fixed per-process base
    assert peak <= predicted + PROCESS_BASE / 2
    assert predicted <= max(1.15 * peak, peak + PROCESS_BASE)


def test_more_workers_split_the_shards():
    layout = Layout(distcfr.load_game("draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)"))
    one, four = estimate(layout, 4, 1), estimate(layout, 4, 4)
    assert four.per_worker < one.per_worker < 4 * four.per_worker
    assert four.this_machine == four.coordinator + 4 * four.per_worker


def test_a_solve_that_cannot_fit_is_refused_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("distcfr.solve.launch.available_bytes", lambda: 1_000_000)
    out = tmp_path / "s.msgpack"
    assert main(["--game", "leduc", "--iterations", "5", "--out", str(out), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "GB" in err and "available" in err
    assert not out.exists()


def test_the_estimate_is_printed_and_in_the_summary(tmp_path, capsys):
    import json

    summary = tmp_path / "s.json"
    assert main(["--game", "kuhn", "--iterations", "5", "--out", str(tmp_path / "k.msgpack"), "--no-tables",
                 "--summary-json", str(summary)]) == 0
    assert "memory: about" in capsys.readouterr().out
    memory = json.loads(summary.read_text())["memory"]
    assert memory["this_machine_bytes"] >= memory["tables_bytes"] > 0 and memory["workers"] == 0

"""python -m distcfr.train end to end through main(argv), and its bad-input errors."""

import json

import msgpack
import numpy as np
import pytest

import distcfr
from distcfr.evaluate.strategy import load_strategy
from distcfr.train import main


def test_train_writes_strategy_and_summary(tmp_path, capsys):
    out, summary = tmp_path / "kuhn.msgpack", tmp_path / "kuhn.json"
    rc = main(["--game", "kuhn", "--iterations", "300", "--algorithm", "cfr+", "--out", str(out),
               "--summary-json", str(summary), "--quiet"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "exploitability" in printed and "value" in printed
    data = json.loads(summary.read_text())
    for key in ("game", "algorithm", "iterations", "wall_seconds", "exploitability", "value"):
        assert key in data
    assert data["game"] == "kuhn" and data["algorithm"] == "cfr+" and data["iterations"] == 300

    # the file holds exactly the average strategy a Python run of the same solve gives
    expected = distcfr.Solver(distcfr.load_game("kuhn"), algorithm="cfr+").solve(iterations=300)
    loaded = load_strategy(out)
    assert loaded.probs.tobytes() == expected.probs.tobytes()
    assert loaded.meta["iterations"] == 300 and loaded.meta["algorithm"] == "cfr+"
    assert data["exploitability"] == expected.exploitability() == loaded.exploitability()
    assert data["value"] == pytest.approx(expected.value(), abs=0)

    raw = msgpack.unpackb(out.read_bytes())
    assert raw["format"] == "distcfr-strategy" and raw["version"] == 2 and raw["game"] == "kuhn"
    assert raw["infosets"][0] == "J|" and raw["actions"][0] == ["check", "bet"]
    table = np.frombuffer(raw["probabilities"]["data"], raw["probabilities"]["dtype"])
    assert table.reshape(raw["probabilities"]["shape"]).shape == (1, 12, 2)


def test_default_runs_to_a_target(tmp_path):
    summary = tmp_path / "s.json"
    assert main(["--game", "kuhn", "--out", str(tmp_path / "k.msgpack"), "--summary-json", str(summary),
                 "--quiet"]) == 0
    assert json.loads(summary.read_text())["exploitability"] <= 1e-4


def test_target_exploitability_stops_early(tmp_path):
    summary = tmp_path / "s.json"
    assert main(["--game", "leduc", "--target-exploitability", "1e-3", "--iterations", "100000",
                 "--out", str(tmp_path / "l.msgpack"), "--summary-json", str(summary), "--quiet"]) == 0
    data = json.loads(summary.read_text())
    assert data["exploitability"] <= 1e-3 and data["iterations"] < 100000


def test_help_documents_every_option(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for option in ("--game", "--iterations", "--target-exploitability", "--algorithm", "--eval-every",
                   "--out", "--summary-json", "Examples"):
        assert option in text


BAD = [
    (["--game", "chess"], "unknown game 'chess'"),
    (["--game", "kuhn(cards=4)"], "unknown parameter 'cards'"),
    (["--game", "kuhn(("], "cannot read game spec"),
    (["--algorithm", "cfr++"], "invalid choice"),
    (["--iterations", "0"], "must be positive"),
    (["--iterations", "-5"], "must be positive"),
    (["--iterations", "many"], "not a whole number"),
    (["--target-exploitability", "0"], "must be a positive number"),
    (["--eval-every", "0"], "must be positive"),
    (["--algorithm", "dcfr", "--alpha", "-1", "--iterations", "1"], "alpha must be"),
    (["--algorithm", "cfr+", "--gamma", "2"], "only apply to dcfr"),
    (["--out", "/no/such/folder/s.msgpack"], "does not exist"),
    (["--summary-json", "/no/such/folder/s.json"], "does not exist"),
    (["--frobnicate"], "unrecognized arguments"),
]


@pytest.mark.parametrize("argv, message", BAD)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, message):
    out = tmp_path / "keep.msgpack"
    out.write_bytes(b"previous result")
    argv = ["--game", "kuhn", "--out", str(out), "--quiet", *argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert out.read_bytes() == b"previous result"  # nothing already saved is lost
    assert [p.name for p in tmp_path.iterdir()] == ["keep.msgpack"]  # nothing half-written


def test_output_directory_is_refused(tmp_path, capsys):
    assert main(["--game", "kuhn", "--iterations", "5", "--out", str(tmp_path), "--quiet"]) == 2
    assert "directory" in capsys.readouterr().err


def test_draw27_stack_range_summary_and_refined_break_even(tmp_path, capsys):
    summary = tmp_path / "d.json"
    assert main(["--game", "draw27(ranks=13,suits=1,hand=1,stacks=3:5:0.5)", "--target-exploitability", "1e-6",
                 "--refine-break-even", "0.01", "--out", str(tmp_path / "d.msgpack"),
                 "--summary-json", str(summary), "--quiet"]) == 0
    data = json.loads(summary.read_text())
    assert [row["stack"] for row in data["per_stack"]] == [3, 3.5, 4, 4.5, 5]
    assert data["exploitability"] == max(row["exploitability"] for row in data["per_stack"]) <= 1e-6
    (refined,), (interpolated,) = data["break_even"], data["break_even_interpolated"]
    assert 3.5 < refined < 4.5 and abs(refined - interpolated) < 0.05
    printed = capsys.readouterr().out
    assert "break-even" in printed and "push" in printed and "exploitability" in printed
    # a range where the button always wins: no crossing, an empty list
    assert main(["--game", "draw27(stacks=1:2:0.5)", "--out", str(tmp_path / "e.msgpack"),
                 "--summary-json", str(summary), "--quiet", "--no-tables"]) == 0
    assert json.loads(summary.read_text())["break_even"] == []


def test_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "run.png"
    assert main(["--game", "draw27(stacks=3:5:1)", "--plot", str(plot), "--out", str(tmp_path / "d.msgpack"),
                 "--quiet", "--no-tables"]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_progress_logs_lines_when_not_on_a_terminal():
    import io

    from distcfr.progress import Progress

    stream = io.StringIO()
    progress = Progress(100, stream=stream, log_every=0.0)
    progress.update(10, 10, "1.50e-03 chips per game", "  2 workers on 1 node(s)")
    progress.update(20, 20)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in stream.getvalue()
    assert "iteration 10/100 (10%)" in lines[0] and "exploitability 1.50e-03 chips per game" in lines[0]
    assert "left" in lines[0]
    assert "workers" in lines[0] and "iteration 20/100 (20%)" in lines[1]


def test_progress_says_the_share_done_and_the_time_left_against_the_stopping_rule():
    from distcfr.progress import Progress, clock

    resumed = Progress(100, enabled=False)
    assert resumed.line(60, 10, 20.0) == "  iteration 60/100 (20%)  20s, ~1:20 left"  # 10 of the 50 this run does
    timed = Progress(None, enabled=False, seconds=600)
    assert timed.line(7, 7, 150.0) == "  iteration 7 (25%)  2:30, ~7:30 left"
    both = Progress(1000, enabled=False, seconds=60)  # whichever stops it first
    assert both.line(10, 10, 30.0).endswith("(50%)  30s, ~30s left")
    assert Progress(None, enabled=False).line(3, 3, 1.0) == "  iteration 3  1s"  # a target: no estimate
    assert clock(3725) == "1:02:05"


def test_a_redrawn_progress_line_never_wraps_the_terminal(monkeypatch):
    import io
    import os

    from distcfr.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=None: os.terminal_size((80, 24)))
    stream = Terminal()
    progress = Progress(100, stream=stream)
    progress.update(10, 10, "0.0123 BB (12.3 mBB) per hand, in [0.0041, 0.0310] BB", "  123,456 deals/s  2 workers")
    drawn = stream.getvalue().split("\r")[-1].replace("\033[K", "")
    assert 60 < len(drawn) <= 79


def test_a_note_amid_a_redrawn_progress_line_takes_its_place_and_fits_the_terminal(monkeypatch):
    import io

    from distcfr.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("COLUMNS", "40")
    stream = Terminal()
    progress = Progress(100, stream=stream)
    note = "target 0.01 BB per hand: out of reach of the bracket at --bracket-samples 20"
    progress.note("  " + note)
    written = stream.getvalue()
    assert written.startswith("\r\033[K") and written.endswith("\n")
    assert all(len(line) <= 40 for line in written[4:].splitlines()) and " ".join(written[4:].split()) == note


def test_minutes_stop_an_exact_solve_too(tmp_path):
    summary = tmp_path / "s.json"
    assert main(["--game", "leduc", "--minutes", "0.002", "--workers", "0", "--quiet", "--no-tables",
                 "--out", str(tmp_path / "s.msgpack"), "--summary-json", str(summary)]) == 0
    data = json.loads(summary.read_text())
    # the default target (1e-4, ~1,400 iterations) is not what stopped it: 0.12 s did
    assert data["exploitability"] > 1e-4 and data["wall_seconds"] < 5


@pytest.mark.parametrize("extra, message", [
    (["--game", "leduc", "--batch", "100"], "--batch is a sampled solve's option"),
    (["--game", "leduc", "--seed", "3"], "--seed is a sampled solve's option"),
    (["--game", "leduc", "--bracket-samples", "10"], "--bracket-samples is a sampled solve's option"),
    (["--game", "leduc", "--bracket-rounds", "1"], "--bracket-rounds is a sampled solve's option"),
    (["--game", "leduc", "--bracket-focus", "0"], "--bracket-focus is a sampled solve's option"),
    (["--game", "leduc", "--sampling"], "leduc cannot be solved by sampling"),
    (["--game", "draw27(ranks=8,suits=2,hand=3,stacks=10)", "--sampling", "--alpha", "2"], "alpha"),
    (["--game", "draw27(ranks=8,suits=2,hand=3,stacks=10)", "--sampling", "--updates", "simultaneous"],
     "alternately"),
    (["--game", "draw27(ranks=8,suits=2,hand=3,stacks=2:4:1)", "--sampling", "--refine-break-even", "0.1"],
     "a sampled run cannot"),
    (["--game", "leduc", "--workers", "0", "--address", "127.0.0.1:1"], "needs workers"),
])
def test_options_a_mode_cannot_use_are_refused_in_one_line(tmp_path, capsys, extra, message):
    out = tmp_path / "s.msgpack"
    assert main([*extra, "--iterations", "2", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_resume_refuses_another_seed_or_batch(tmp_path, capsys):
    ckpt = tmp_path / "s.ckpt"
    game = "draw27(ranks=8,suits=2,hand=3,stacks=10)"
    assert main(["--game", game, "--sampling", "--iterations", "1", "--batch", "500", "--seed", "4", "--quiet",
                 "--bracket-samples", "200", "--workers", "0", "--checkpoint", str(ckpt),
                 "--out", str(tmp_path / "a.msgpack")]) == 0
    for option, value in (("--seed", "5"), ("--batch", "600")):
        assert main(["--resume", str(ckpt), "--iterations", "2", option, value, "--quiet",
                     "--out", str(tmp_path / "b.msgpack")]) == 2
        assert f"{option[2:]}=" in capsys.readouterr().err


def test_a_resume_writes_the_checkpoint_back_and_its_summary_separates_this_run(tmp_path, capsys):
    ckpt, summary = tmp_path / "k.ckpt", tmp_path / "k.json"
    assert main(["--game", "kuhn", "--iterations", "50", "--quiet", "--checkpoint", str(ckpt),
                 "--out", str(tmp_path / "a.msgpack")]) == 0
    assert main(["--resume", str(ckpt), "--iterations", "80", "--quiet", "--no-tables",
                 "--out", str(tmp_path / "b.msgpack"), "--summary-json", str(summary)]) == 0
    printed = capsys.readouterr().out
    assert "saved back to" in printed and "80 iterations (this run: 30 iterations" in printed
    assert distcfr.load_checkpoint(str(ckpt)).iteration == 80
    data = json.loads(summary.read_text())
    assert data["iterations"] == 80 and data["this_run"]["iterations"] == 30
    assert data["this_run"]["resumed_from"] == str(ckpt)
    assert main(["--resume", str(ckpt), "--iterations", "90", "--quiet", "--no-checkpoint",
                 "--out", str(tmp_path / "c.msgpack")]) == 0
    assert distcfr.load_checkpoint(str(ckpt)).iteration == 80  # told to leave it


@pytest.mark.parametrize("argv, message", [
    (["--resume", "{ckpt}", "--out", "{ckpt}"], "--out {ckpt} is the same file as --resume"),
    (["--game", "kuhn", "--checkpoint", "{dir}/x", "--out", "{dir}/./x"], "is the same file as --checkpoint"),
    (["--game", "kuhn", "--out", "{dir}/s", "--summary-json", "{dir}/s"], "is the same file as --out"),
    (["--game", "kuhn", "--checkpoint", ""], "an empty path"),
    (["--game", "kuhn", "--no-checkpoint"], "--no-checkpoint goes with --resume"),
])
def test_no_output_may_overwrite_an_input_or_another_output(tmp_path, capsys, argv, message):
    ckpt = tmp_path / "k.ckpt"
    assert main(["--game", "kuhn", "--iterations", "5", "--quiet", "--checkpoint", str(ckpt),
                 "--out", str(tmp_path / "a.msgpack")]) == 0
    before = ckpt.read_bytes()
    capsys.readouterr()
    fill = {"ckpt": str(ckpt), "dir": str(tmp_path)}
    assert main([a.format(**fill) for a in argv] + ["--iterations", "10", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message.format(**fill) in err and len(err.strip().splitlines()) == 1
    assert ckpt.read_bytes() == before


def test_large_files_are_announced_with_their_size_before_they_are_written(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("distcfr.train.ANNOUNCE_BYTES", 1)
    assert main(["--game", "kuhn", "--iterations", "5", "--no-tables", "--checkpoint", str(tmp_path / "k.ckpt"),
                 "--out", str(tmp_path / "a.msgpack")]) == 0
    err = capsys.readouterr().err
    assert f"writing checkpoint {tmp_path / 'k.ckpt'} (0.00 GB)" in err
    assert f"writing average strategy {tmp_path / 'a.msgpack'}" in err

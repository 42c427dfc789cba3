"""The memory estimate against what a solve really allocates, and the refusal of what cannot fit."""

import os
import tracemalloc
from pathlib import Path

import pytest

import distcfr
from distcfr.engine.layout import Layout
from distcfr.engine.memory import PROCESS_BASE, RAY_PROCESSES, estimate
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
    assert four.this_machine == four.coordinator + 4 * four.per_worker + RAY_PROCESSES


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


# ---- one check for every command: estimated from the game's sizes, before anything large is built ----
@pytest.mark.parametrize("spec", ["kuhn", "leduc", "draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)",
                                  "draw27(ranks=8,suits=2,hand=4,stacks=10)"])
def test_the_estimate_from_the_game_sizes_is_the_layouts(spec):
    from distcfr.engine.memory import exact_estimate

    game = distcfr.load_game(spec)
    assert exact_estimate(game) == estimate(Layout(game), min(game.default_shards, game.n_deals), 0)


def _one_line(capsys, rc, *expected):
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in err, err


def test_every_command_refuses_what_does_not_fit(tmp_path, capsys, monkeypatch):
    from distcfr import compare, match, show
    from distcfr.evaluate.load import load_strategy

    small = "draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)"
    exact, sampled = tmp_path / "e.msgpack", tmp_path / "s.msgpack"
    assert main(["--game", "leduc", "--iterations", "3", "--out", str(exact), "--quiet", "--no-tables"]) == 0
    assert main(["--game", small, "--sampling", "--iterations", "2", "--batch", "100", "--out", str(sampled),
                 "--quiet", "--no-tables", "--workers", "0", "--bracket-samples", "4"]) == 0
    monkeypatch.setattr("distcfr.engine.memory.available_bytes", lambda: 1_000)
    _one_line(capsys, show.main([str(exact)]), "leduc needs about", "GB are available")
    _one_line(capsys, show.main([str(sampled)]), "needs about", "GB are available")
    _one_line(capsys, match.main([str(exact), "random"]), "leduc needs about")
    _one_line(capsys, match.main(["--game", "kuhn", "random", "random"]), "a match of kuhn needs about")
    _one_line(capsys, match.main(["--game", small, "random", "train:3"]), "needs about")
    _one_line(capsys, compare.main(["--game", "kuhn", "--seconds", "0.1", "--no-openspiel"]),
              "a race of kuhn needs about")
    for path in (exact, sampled):
        with pytest.raises(distcfr.BadParameter, match="needs about"):
            load_strategy(path)
    with pytest.raises(distcfr.BadParameter, match="kuhn needs about"):
        distcfr.Solver(distcfr.load_game("kuhn"))


BIG = "draw27(ranks=8,suits=2,hand=3,stacks=1:40:1)"  # 70 GB to evaluate exactly


@pytest.mark.parametrize("argv", [["distcfr.match", "--game", BIG, "random", "random"],
                                  ["distcfr.compare", "--game", "draw27(ranks=8,suits=2,hand=4)", "--no-openspiel"]])
def test_a_big_game_is_refused_before_it_is_allocated(argv):
    """Under a 2 GB address-space limit, with the machine said to have 10 GB free: refused in one
    line naming the estimate, never a MemoryError."""
    import subprocess
    import sys

    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
            "import distcfr.engine.memory as m; m.available_bytes = lambda: 10**10; "
            f"import {argv[0]} as cmd; sys.exit(cmd.main({argv[1:]!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "needs about" in done.stderr and "10.0 GB" in done.stderr


def test_a_small_shared_file_of_a_big_game_is_refused_before_its_evaluation(tmp_path, capsys, monkeypatch):
    """A strategy file of 4 MB whose game needs 36.9 GB to evaluate (issue 25): match
    refuses it in one line naming the estimate, it does not grow until a MemoryError."""
    from distcfr import match
    from distcfr.evaluate.strategy import Strategy

    layout = Layout(distcfr.load_game("draw27(ranks=8,suits=2,hand=4,stacks=10)"))
    path = tmp_path / "big.msgpack"
    Strategy(layout, layout.uniform_strategy()).save(path)
    assert path.stat().st_size < 5e6
    monkeypatch.setattr("distcfr.engine.memory.available_bytes", lambda: 10**10)
    _one_line(capsys, match.main([str(path), "random"]), "needs about 36.9 GB here, 10.0 GB are available")


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _title_and_rss(pid: int) -> tuple[str, int]:
    try:
        title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        rss = next(int(line.split()[1]) * 1024 for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                   if line.startswith("VmRSS:"))
        return title, rss
    except (OSError, StopIteration):
        return "", 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_rays_own_processes_weigh_what_the_estimate_counts_for_them(ray_local):
    # the embedded Ray's servers, agents and monitors, not its worker processes (titled ray::<task>)
    own = 0
    for pid in _descendants(os.getpid()):
        title, rss = _title_and_rss(pid)
        worker = title.startswith("ray::") and not title.split()[0].endswith("Agent")
        if title and not worker:
            own += rss
    assert 0.6 * RAY_PROCESSES <= own <= 1.4 * RAY_PROCESSES, own

"""Hostile input and hostile moments on the command line (issue: hardening the sampled side): bounds on
options, paths, what reaches a terminal, a closed pipe, and signals at every stage."""

import os
import signal
import subprocess
import sys
import time

import pytest

import distcfr
from distcfr.train import main

SMALL = "draw27(ranks=8,suits=2,hand=3,stacks=10)"


@pytest.mark.parametrize("argv, message", [
    (["--game", "draw27(ranks=8,suits=2,hand=3,stacks=1e39)", "--sampling"], "at most 1e+06 BB"),
    (["--game", "draw27(ranks=8,suits=2,hand=3,stacks=1e308)", "--sampling"], "at most 1e+06 BB"),
    (["--game", SMALL, "--sampling", "--bracket-samples", "2000000000"], "at most 131,072 deals per hand class"),
    (["--game", SMALL, "--sampling", "--bracket-rounds", "5"], "--bracket-rounds: at most 4 (a round draws 4x"),
    (["--game", SMALL, "--sampling", "--bracket-rounds", "-1"], "--bracket-rounds: must be 0 (no refinement) or more"),
    (["--game", SMALL, "--sampling", "--bracket-focus", "65"], "--bracket-focus: at most 64 (times each player's"),
    (["--game", SMALL, "--sampling", "--bracket-focus", "-2"], "--bracket-focus: must be 0 (no focus round) or more"),
])
def test_sampled_bounds_are_refused_in_one_line(tmp_path, capsys, argv, message):
    out = tmp_path / "s.msgpack"
    assert main([*argv, "--iterations", "2", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and not out.exists()


def test_a_checkpoint_reached_through_a_symlink_is_written_through_it(tmp_path):
    real, link = tmp_path / "real.ckpt", tmp_path / "link.ckpt"
    assert main(["--game", "kuhn", "--iterations", "5", "--quiet", "--checkpoint", str(real),
                 "--out", str(tmp_path / "a.msgpack")]) == 0
    link.symlink_to(real)
    assert main(["--game", "kuhn", "--iterations", "9", "--quiet", "--checkpoint", str(link),
                 "--out", str(tmp_path / "b.msgpack")]) == 0
    assert link.is_symlink() and distcfr.load_checkpoint(str(real)).iteration == 9


def test_a_read_only_file_system_is_called_so(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "distcfr-test", str(folder)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        assert main(["--game", "kuhn", "--iterations", "2", "--quiet", "--out", str(folder / "s.msgpack")]) == 2
        assert "read-only file system" in capsys.readouterr().err
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_escape_sequences_from_a_file_do_not_reach_the_terminal(tmp_path, capsys):
    from distcfr.evaluate.class_strategy import load_class_strategy
    from distcfr.show import main as show

    out = tmp_path / "s.msgpack"
    assert main(["--game", SMALL, "--sampling", "--iterations", "2", "--batch", "200", "--quiet", "--workers", "0",
                 "--bracket-samples", "2", "--out", str(out)]) == 0
    strategy = load_class_strategy(out)
    strategy.meta["algorithm"] = "lcfr\x1b]0;owned\x07\x1b[2J"
    strategy.save(out)
    capsys.readouterr()
    assert show([str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed and "lcfr\\x1b]0;owned\\x07" in printed


def test_a_closed_pipe_ends_the_output_not_the_run(tmp_path):
    out = tmp_path / "k.msgpack"
    done = subprocess.run(f"{sys.executable} -m distcfr.train --game kuhn --iterations 10 --out {out} | head -1",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr and out.exists()


def test_the_pipe_safe_stdout_answers_at_exit_after_its_stream_closed(monkeypatch):
    # Ray's colorama asks stdout whether it is a terminal in an exit hook, after a test harness closed the stream
    import io

    from distcfr.cli import tolerate_closed_stdout

    stream = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stream)
    tolerate_closed_stdout()
    print("a line")
    assert stream.getvalue() == "a line\n" and not sys.stdout.closed
    stream.close()
    assert sys.stdout.closed and sys.stdout.isatty() is False


def _group_sigterm_after(argv, wait_for: str, tmp_path, pause: float = 1.0):
    """Start the driver in its own process group, wait for ``wait_for`` on its stderr (or stdout), then
    SIGTERM the whole group (timeout, systemd, Slurm): (seconds to exit, return code, stdout, stderr)."""
    driver = subprocess.Popen([sys.executable, "-m", "distcfr.train", *argv], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True, cwd=tmp_path)
    seen = ""
    try:
        deadline = time.time() + 120
        while wait_for not in seen and time.time() < deadline and driver.poll() is None:
            seen += driver.stdout.readline()
        time.sleep(pause)
        start = time.time()
        os.killpg(driver.pid, signal.SIGTERM)
        rest, _ = driver.communicate(timeout=60)
        return time.time() - start, driver.returncode, seen + rest
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait()


def _distcfr_lines(output: str) -> list[str]:
    """The run's lines other than what it may print before any signal: memory, progress, a bracket's cost,
    when the first progress bracket comes or why they stop, the bound on the final bracket's time."""
    return [line for line in output.splitlines() if line.strip() and not line.startswith("memory: about")
            and not line.lstrip().startswith(("iteration ", "bracket: ", "progress brackets",
                                              "the final bracket takes at most"))]


@pytest.mark.slow
@pytest.mark.parametrize("pause", [2.0, 6.0])
def test_sigterm_to_the_whole_group_of_a_sampled_ray_run_ends_in_seconds_with_one_line(tmp_path, pause):
    """About 15 s each: Ray's start-up, then the whole group signalled while Ray starts or while it runs.
    Whatever the moment, the run ends in seconds with one line and exit 130; what it could save it saved
    (the workers' rows go with them when they are signalled too)."""
    elapsed, code, output = _group_sigterm_after(
        ["--game", SMALL, "--sampling", "--iterations", "100000", "--batch", "2000", "--workers", "2",
         "--checkpoint", "ck", "--checkpoint-every", "5", "--out", "s.msgpack"], "memory: about", tmp_path, pause)
    assert elapsed < 20 and code in (130, -signal.SIGKILL), (elapsed, code, output)  # the start guard kills
    lines = _distcfr_lines(output)
    assert len(lines) == 1 and "Traceback" not in output, output
    ends = ("stopped while starting", "workers were stopped too", "interrupted",
            "Ray's processes were stopped too")  # the last: Ray itself went before the run could tell its workers had
    assert any(end in lines[0] for end in ends), output
    if (tmp_path / "ck").exists():
        assert distcfr.load_checkpoint(str(tmp_path / "ck")).iteration >= 5


@pytest.mark.slow
def test_sigterm_while_ray_starts_ends_in_one_line(tmp_path):
    """About 5 s."""
    elapsed, code, output = _group_sigterm_after(
        ["--game", SMALL, "--sampling", "--iterations", "100000", "--batch", "2000", "--workers", "2",
         "--out", "s.msgpack"], "memory: about", tmp_path, 0.0)
    assert elapsed < 20 and code == -signal.SIGKILL, (elapsed, code, output)  # by the start guard's watcher
    assert _distcfr_lines(output) == ["distcfr.train: stopped while starting, before any iteration; nothing was "
                                      "written"]
    assert not (tmp_path / "s.msgpack").exists()


def test_show_and_match_never_write_over_their_inputs(tmp_path, capsys):
    from distcfr.match import main as match
    from distcfr.show import main as show

    out = tmp_path / "k.msgpack"
    assert main(["--game", "kuhn", "--iterations", "20", "--quiet", "--no-tables", "--out", str(out)]) == 0
    before = out.read_bytes()
    capsys.readouterr()
    assert show([str(out), "--format", "json", "--out", str(out)]) == 2
    assert "--out" in capsys.readouterr().err
    assert show([str(out), "--html", str(tmp_path / "." / "k.msgpack")]) == 2
    assert "--html" in capsys.readouterr().err
    assert match([str(out), "random", "--json", str(out)]) == 2
    assert "--json" in capsys.readouterr().err and out.read_bytes() == before


def test_show_hand_prints_the_hand_first_and_every_discard_it_plays(tmp_path, capsys):
    from distcfr.show import main as show

    out = tmp_path / "s.msgpack"
    assert main(["--game", SMALL, "--sampling", "--iterations", "3", "--batch", "300", "--quiet", "--workers", "0",
                 "--bracket-samples", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    assert show([str(out), "--hand", "8c6d4c"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("8c6d4c") and "hand group" in "\n".join(lines[3:])
    big_blind = lines[2].split("big blind draws: ")[1].split(", ")
    assert len(big_blind) > 3  # after 3 iterations nearly uniform: all 8 discards of 3 cards, not the top 3

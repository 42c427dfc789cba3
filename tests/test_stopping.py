"""Stop requests (distcfr.stopping): heard within seconds in every phase, with what was solved saved."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from distcfr.evaluate.class_strategy import load_class_strategy
from distcfr.solve.checkpoint import load_checkpoint
from distcfr.stopping import (
    RunSignals,
    StopRequested,
    WorkAbandoned,
    abandon_if_stopped,
    clear_stop,
    interrupts_unwrapped,
    request_stop,
    stop_requested,
)

# a short run (about 10 s) whose final bracket alone takes minutes: a stop there is the case to hear
BRACKET_RUN = ["--game", "draw27(ranks=8,suits=2,hand=3,stacks=4:10:2)", "--sampling", "--iterations", "10",
               "--batch", "2000", "--seed", "3", "--bracket-samples", "60000", "--no-tables"]
EXIT_BOUND = 20.0  # seconds from the signal to the end: generous on a loaded machine, far below the bracket's time
RAY_NOISE = ("Traceback", "Unhandled error", "RayTaskError", "ActorDiedError", "ActorUnavailableError")


def test_long_work_gives_up_at_its_next_check_once_a_stop_is_requested():
    clear_stop()
    abandon_if_stopped()  # no request: goes on
    request_stop()
    try:
        assert stop_requested()
        with pytest.raises(WorkAbandoned):
            abandon_if_stopped()
        with pytest.raises(StopRequested), interrupts_unwrapped():  # the run loop's view of it: a stop
            abandon_if_stopped()
    finally:
        clear_stop()
    assert not stop_requested()


def test_a_run_signal_is_recorded_passed_on_and_interrupts_only_a_wait():
    waiting = [False]
    with RunSignals(lambda: waiting[0]) as requested:
        signal.raise_signal(signal.SIGTERM)  # not waiting: recorded for the loop's next safe point
        assert requested.requested == [signal.SIGTERM] and stop_requested() and requested
        waiting[0] = True
        with pytest.raises(StopRequested):
            signal.raise_signal(signal.SIGINT)
    assert not stop_requested()  # the request ends with the run's handling
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGTERM))


def _read_lines(stream, lines: list[str]) -> threading.Thread:
    def read():
        for line in stream:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_in_the_final_bracket_ends_the_run_in_seconds_with_both_files(tmp_path, workers, sig):
    ckpt, out = tmp_path / "ck", tmp_path / "s.msgpack"
    driver = subprocess.Popen([sys.executable, "-m", "distcfr.train", *BRACKET_RUN, "--workers", str(workers),
                               "--checkpoint", str(ckpt), "--out", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    err: list[str] = []
    readers = [_read_lines(driver.stderr, err), _read_lines(driver.stdout, outs := [])]
    try:
        waited = time.monotonic()
        while not any("final exploitability bracket" in line for line in err):
            assert driver.poll() is None and time.monotonic() - waited < 180, "".join(err)[-2000:]
            time.sleep(0.1)
        time.sleep(1.5)  # well into the bracket's work
        signalled = time.monotonic()
        driver.send_signal(sig)  # the driver alone, as a job scheduler sends it
        driver.wait(timeout=120)
        took = time.monotonic() - signalled
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait()
    for reader in readers:
        reader.join(5)
    said = "".join(outs + err)
    assert driver.returncode == 130, said[-2000:]
    assert took < EXIT_BOUND, f"{took:.1f} s from the signal to the end"
    last = err[-3:] + outs[-3:]
    assert not [line for line in last if any(word in line for word in RAY_NOISE)], said[-2000:]
    assert any(line.startswith("interrupted draw27") for line in outs), said[-2000:]
    assert load_checkpoint(ckpt).iteration == 10  # saved before the final bracket started
    strategy = load_class_strategy(out)
    assert strategy.meta["iterations"] == 10 and "evaluation" not in strategy.meta  # written, unevaluated

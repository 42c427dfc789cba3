"""Seconds from a stop signal to the end of `python -m distcfr.train`, phase by phase.

    python bench/stop_latency.py [--workers 0,2] [--signals TERM,INT] [--phases start,training,final]

Each row starts the CLI on a small sampled deck whose final bracket alone takes minutes, waits for
the phase (``imports``: 0.3 s after launch; ``start``: as the memory estimate is said, while Ray
starts; ``training``: 1 s after the first checkpoint; ``progress``: 2 s after the first checkpoint of a
run with a target, in its first progress bracket; ``final``: 1.5 s into the final bracket),
sends the signal to the driver alone (as a job scheduler does; ``--group`` sends it to the whole
process group instead) and times the exit. It prints the exit code, the seconds, whether the
checkpoint and the strategy were written, and the last line of the run's output."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

GAME = ["--game", "draw27(ranks=8,suits=2,hand=3,stacks=4:10:2)", "--sampling", "--batch", "2000", "--seed", "3",
        "--bracket-samples", "60000", "--no-tables"]
PHASES = {  # phase -> (iterations, what it waits for: text the run prints, "ckpt" or None; seconds after it)
    "imports": ("10", None, 0.3),
    "start": ("10", "memory:", 0.0),
    "training": ("100000", "ckpt", 1.0),
    "progress": ("100000", "ckpt", 2.0),  # with PROGRESS below: the first progress bracket, at iteration 3
    "final": ("10", "final exploitability bracket", 1.5),
}
PROGRESS = ["--target-exploitability", "0.0001", "--eval-every", "3"]


def one(workers: int, sig: signal.Signals, phase: str, group: bool) -> str:
    iterations, marker, delay = PHASES[phase]
    with tempfile.TemporaryDirectory(prefix="stop-latency-") as folder:
        ckpt, out = Path(folder, "ck"), Path(folder, "s.msgpack")
        extra = PROGRESS + ["--checkpoint-every", "1"] if phase == "progress" else ["--checkpoint-every", "20"]
        driver = subprocess.Popen([sys.executable, "-m", "distcfr.train", *GAME, "--iterations", iterations,
                                   "--workers", str(workers), "--checkpoint", str(ckpt), *extra, "--out", str(out)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(driver.stdout), daemon=True)
        reader.start()
        began = time.monotonic()
        def reached() -> bool:
            return ckpt.exists() if marker == "ckpt" else any(marker in line for line in lines)

        while marker and not reached() and driver.poll() is None:
            if time.monotonic() - began > 300:
                break
            time.sleep(0.05)
        time.sleep(delay)
        signalled = time.monotonic()
        if group:
            os.killpg(driver.pid, sig)
        else:
            driver.send_signal(sig)
        try:
            driver.wait(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait()
        took = time.monotonic() - signalled
        reader.join(5)
        last = lines[-1].strip() if lines else ""
        return (f"{workers:>7} {sig.name:>7} {phase:>8} {driver.returncode:>4} {took:>7.2f} "
                f"{'yes' if ckpt.exists() else 'no':>4} {'yes' if out.exists() else 'no':>4}  {last[:90]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="0,2")
    parser.add_argument("--signals", default="TERM,INT")
    parser.add_argument("--phases", default=",".join(PHASES))
    parser.add_argument("--group", action="store_true", help="signal the whole process group")
    args = parser.parse_args()
    print(f"{'workers':>7} {'signal':>7} {'phase':>8} {'rc':>4} {'seconds':>7} {'ckpt':>4} {'out':>4}  last line")
    for workers in (int(w) for w in args.workers.split(",")):
        for name in args.signals.split(","):
            for phase in args.phases.split(","):
                print(one(workers, signal.Signals[f"SIG{name}"], phase, args.group), flush=True)


if __name__ == "__main__":
    main()

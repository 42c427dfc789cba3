"""The cluster's head, watched. A run joined to a cluster cannot outlive its head: the head's
control store (GCS) knows where every actor and object is, and a driver started on the head uses
the head's object store. When the head goes, Ray's driver either blocks in whatever call it was
making until its GCS reconnect timeout (60 s) and then ends the process, or ends it at once (its
object store connection failed); either way from C++, with exit code 1 and no word to the user.

So while distcfr is joined to a cluster (``start``, until ``stop``):

* a daemon thread probes the head's GCS port every second. The head is gone when its machine
  answers but nothing listens there (the connection is refused) for REFUSED_SECONDS, or when
  nothing answers at all for SILENT_SECONDS (a cut link may come back). Then the process ends:
  the run's line (``say``) on stderr, exit code EXIT_CODE;
* a small guard process (this module's ``guard``) outlives the driver: when the driver ends
  without saying goodbye (Ray ended it) and the head is gone, it says the same line.

Either way the files the run named with ``tidy`` (its temporary files) are removed first. Where a
Ray call fails, :func:`verdict` lets the watch decide whether the head is gone before the failure
is taken for a lost worker.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from distcfr.stopping import end_process, ignore_stop_signals

REFUSED_SECONDS = 3.0  # nothing listens on the head's port: its processes are gone
SILENT_SECONDS = 30.0  # no answer at all: a link may come back (Ray's driver itself gives up at 60 s)
PROBE_SECONDS = 1.0  # between two probes, and the most one probe waits
GUARD_SECONDS = 5.0  # how long the guard watches a head that still answers after the driver ended
EXIT_CODE = 1  # what Ray's own end of the driver gives, so that every head loss ends alike
PLAIN_LINE = "distcfr: the Ray cluster's head at {address} is gone ({why})"


def probe(address: str, timeout: float = PROBE_SECONDS) -> str:
    """The head's GCS port at ``address`` (HOST:PORT): "up", "refused" (nothing listens there) or
    "silent" (no answer within ``timeout``, or no route)."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except ConnectionRefusedError:
        return "refused"
    except OSError:
        return "silent"
    return "up"


class HeadWatch:
    """Probes ``address`` from a daemon thread every ``period`` seconds; calls ``on_lost(why)``
    once, when the head is gone (see the module docstring), then stops."""

    def __init__(self, address: str, on_lost: Callable[[str], None], refused_seconds: float = REFUSED_SECONDS,
                 silent_seconds: float = SILENT_SECONDS, period: float = PROBE_SECONDS):
        self.address, self.on_lost, self.period = address, on_lost, period
        self.refused_seconds, self.silent_seconds = refused_seconds, silent_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="distcfr-head-watch", daemon=True)
        self._thread.start()

    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()

    def _watch(self) -> None:
        failing = refused = None  # since when every probe failed; since when every probe was refused
        while not self._stop.wait(self.period):
            state, now = probe(self.address, self.period), time.monotonic()
            failing = None if state == "up" else failing or now
            refused = (refused or now) if state == "refused" else None
            if refused is not None and now - refused >= self.refused_seconds:
                why = "nothing listens on its port"
            elif failing is not None and now - failing >= self.silent_seconds:
                why = f"it has not answered for {self.silent_seconds:g} s"
            else:
                continue
            if not self._stop.is_set():
                self.on_lost(why)
            return


class _State:
    watch: HeadWatch | None = None
    guard: subprocess.Popen | None = None
    telling = threading.Lock()  # the watch's thread and the run's both tell the guard
    line = PLAIN_LINE  # what a lost head ends the process with ({address} and {why} filled in then)
    tidy: list[str] = []  # glob patterns of the files to remove then


def say(line: str) -> None:
    """The line a lost head ends the process with from now on; ``{address}`` and ``{why}`` in it
    are filled in then."""
    _State.line = line.replace("\n", " ")
    _tell("say", _State.line)


def tidy(pattern: str) -> None:
    """Remove the files and folders matching the glob ``pattern`` if a lost head ends the process."""
    _State.tidy.append(pattern)
    _tell("tidy", pattern)


def forget() -> None:
    """Back to the plain line and nothing to tidy (a run's end)."""
    _State.line, _State.tidy = PLAIN_LINE, []


def start(address: str) -> None:
    """Watch the head at ``address`` (HOST:PORT of its GCS) from now on (once)."""
    watch = _State.watch
    if watch is not None and watch.running() and watch.address == address:
        return
    stop()
    _State.watch = HeadWatch(address, lambda why: _end(address, why))
    _State.guard = _start_guard(address)
    atexit.unregister(stop)
    atexit.register(stop)  # a driver that ends by itself says goodbye to its guard


def stop() -> None:
    """Stop watching (the run no longer needs the cluster); the guard ends too."""
    if _State.watch is not None:
        _State.watch.stop()
    guard, _State.guard = _State.guard, None
    if guard is not None:
        _tell("bye", "", guard)
        try:
            guard.stdin.close()
            guard.wait(timeout=2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass


def verdict() -> None:
    """Where a Ray call failed: if the watched head does not answer now, wait until the watch
    decides (it ends the process when the head is gone) or the head answers again."""
    watch = _State.watch
    while watch is not None and watch.running() and probe(watch.address) != "up":
        time.sleep(0.2)


def _end(address: str, why: str) -> None:
    """The head is gone: tidy up, say the run's line on stderr, end the process."""
    _tell("bye", "")  # the line is said here, not by the guard
    _remove(_State.tidy)
    end_process(_filled(_State.line, address, why), EXIT_CODE)


def _filled(line: str, address: str, why: str) -> str:
    return line.replace("{address}", address).replace("{why}", why)


def _remove(patterns: list[str]) -> None:
    for pattern in patterns:
        for path in glob.glob(pattern):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass


def _start_guard(address: str) -> subprocess.Popen | None:
    """The guard process, told the line and the files to tidy so far; None where none can start."""
    try:
        stderr = sys.stderr.fileno()  # the terminal's, also where fd 2 now goes to Ray's log
    except (OSError, ValueError, AttributeError):
        stderr = None
    try:
        guard = subprocess.Popen([sys.executable, "-m", "distcfr.distributed.head_watch", address],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr, text=True,
                                 close_fds=True)
    except OSError:
        return None
    _tell("say", _State.line, guard)
    for pattern in _State.tidy:
        _tell("tidy", pattern, guard)
    return guard


def _tell(kind: str, text: str, guard: subprocess.Popen | None = None) -> None:
    """One message to the guard (a line of text): ``say``, ``tidy`` or ``bye``."""
    guard = guard or _State.guard
    if guard is None:
        return
    try:
        with _State.telling:
            guard.stdin.write(f"{kind}\t{text}\n")
            guard.stdin.flush()
    except (OSError, ValueError):  # the guard is gone: nothing to tell
        pass


def guard(address: str) -> None:
    """The guard process: reads messages until the driver says goodbye or ends; if it ended
    without one while the head is gone, says the driver's line (after tidying up)."""
    ignore_stop_signals()  # a signal to the whole group is the driver's to handle
    line, patterns = PLAIN_LINE, []
    for message in sys.stdin:
        kind, _, text = message.rstrip("\n").partition("\t")
        if kind == "bye":
            return
        if kind == "say":
            line = text
        elif kind == "tidy":
            patterns.append(text)
    why = _gone(address)
    if why:
        _remove(patterns)
        sys.stderr.write(_filled(line, address, why) + "\n")


def _gone(address: str, within: float = GUARD_SECONDS) -> str | None:
    """Why the head is gone, or None when it still answers after ``within`` seconds: Ray may end
    the driver as the head's first process dies, while its port still answers for a moment."""
    deadline, silent = time.monotonic() + within, 0
    while True:
        state = probe(address)
        if state == "refused":
            return "nothing listens on its port"
        silent = silent + 1 if state != "up" else 0
        if silent >= 3:
            return "it does not answer"
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.5)


if __name__ == "__main__":
    guard(sys.argv[1])

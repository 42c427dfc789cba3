"""Signal and exit handling, in one place: how a stop request (SIGINT, SIGTERM) is heard in every
phase of a run, and how a process ends in one line when nothing more can be saved.

* **While a command starts** (Ray starting, workers building) nothing is written yet:
  :class:`StartGuard` ends the process at once with one line; and the handlers stay distcfr's
  while Ray starts (:func:`handlers_kept`).
* **While a run iterates**, :class:`RunSignals` records the request; the run loop stops at its next
  safe point, or at once where it waits on its workers or on an evaluation (the handler raises
  :class:`StopRequested` into that wait).
* **Work that takes long** (a bracket, a value reading, in this process or on a worker) asks
  :func:`abandon_if_stopped` between its chunks: a stop request makes it give up
  (:class:`WorkAbandoned`), so the workers are free again within a chunk's time to hand over what a
  checkpoint and the strategy need. A worker hears the request through :func:`request_stop`, called
  by its coordinator.
* **Saves** run with the signals held (:func:`signals_held`): a file is written whole.
* **Ends**: :func:`end_process` says one line and ends the process now (Ray's processes may be gone,
  and its own exit would wait a minute on them).

The module imports nothing of distcfr: every layer (the engine's loops, the workers, the run loop,
the command line) may use it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_STOPPED = 130  # a run ended by a stop request (as a shell reports Ctrl-C)
SIGNAL_GRACE = 0.05  # seconds a recovery first waits for a signal on its way (recoveries take seconds)


class StopRequested(KeyboardInterrupt):
    """Raised by a stop request's handler into a wait (on workers, on an evaluation). A
    KeyboardInterrupt, because that is what Ray lets through a blocking ``ray.get``."""


class WorkAbandoned(Exception):
    """Long work (a bracket, a value reading) given up on a stop request; on a worker it crosses to
    the coordinator as the task's error."""


_stop = threading.Event()  # this process's stop request (set by a signal here, or by the coordinator)


def request_stop() -> None:
    """Ask the long work of this process to give up at its next check."""
    _stop.set()


def clear_stop() -> None:
    """Forget a stop request (a new run, or a worker whose abandoned work has ended)."""
    _stop.clear()


def stop_requested() -> bool:
    return _stop.is_set()


def abandon_if_stopped() -> None:
    """Called between chunks of long work: raise WorkAbandoned where a stop was requested."""
    if _stop.is_set():
        raise WorkAbandoned("a stop was requested")


def in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class RunSignals:
    """SIGINT and SIGTERM during a run's iterations (main thread only; elsewhere nothing is installed
    and ``requested`` stays None). A request is recorded (``requested``: the signals so far) and
    passed on to this process's long work (:func:`request_stop`); it interrupts at once, raising
    StopRequested, when it is the second one or when ``interrupt_now()`` says the run waits on
    something it may abandon. A context manager: the handlers before it come back at its end."""

    def __init__(self, interrupt_now: Callable[[], bool], install: bool = True):
        self.interrupt_now = interrupt_now
        self.requested: list[int] | None = [] if install and in_main_thread() else None
        self.previous: dict = {}

    def __enter__(self) -> RunSignals:
        if self.requested is not None:
            clear_stop()
            self.previous = {sig: signal.signal(sig, self._on_signal) for sig in STOP_SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        if self.previous:
            clear_stop()  # the work it stopped has ended
        self.previous = {}

    def __bool__(self) -> bool:
        return bool(self.requested)

    def _on_signal(self, signum, frame) -> None:
        self.requested.append(signum)
        request_stop()
        if len(self.requested) > 1 or self.interrupt_now():
            raise StopRequested

    def stop_if_requested(self) -> None:
        """In an ``except`` block: a stop where one was requested (Ray's ``ray.get`` raises its own
        KeyboardInterrupt in place of the StopRequested raised into its wait; long work gives up
        with WorkAbandoned), else the error being handled, again."""
        if self.requested:
            raise StopRequested from None
        raise  # noqa: PLE0704 (the exception the caller is handling)

    def pending(self) -> None:
        """Run the handlers of signals already received (a signal on its way may be a stop: raised
        here as StopRequested)."""
        if self.requested is not None:
            handle_pending_signals()
        if self.requested:
            raise StopRequested


def handle_pending_signals() -> None:
    """Run the Python handlers of signals already received (PyErr_CheckSignals). A signal held by a
    save reaches the process through another thread, and Python runs its handler in the main thread
    only at its next check, which may come after the loss the signal caused is seen (a recovery would
    then come before the stop). A handler's exception (a stop) is raised here."""
    if in_main_thread():
        time.sleep(SIGNAL_GRACE)  # the other thread's turn to take the signal (a signal cuts the wait short)
        ctypes.pythonapi.PyErr_CheckSignals()


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends (then their handlers run), where this thread can
    hold them (the main thread); elsewhere the block runs as it is."""
    main = in_main_thread() and hasattr(signal, "pthread_sigmask")
    if main:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def interrupt_in(err: BaseException | None) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (a signal's stop) that ``err`` is or was raised from, if any."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None


@contextlib.contextmanager
def interrupts_unwrapped() -> Iterator[None]:
    """A signal handler's KeyboardInterrupt raised while numba's dispatcher runs Python code (as it
    sets up a compiled call) comes out of that call as a SystemError chained to it: within this
    block it comes out as itself, so the ``except KeyboardInterrupt`` around the work stops the run
    in one line instead of a traceback. Long work abandoned on a stop request comes out as a
    KeyboardInterrupt too."""
    try:
        yield
    except WorkAbandoned:
        raise StopRequested from None
    except SystemError as err:
        stop = interrupt_in(err)
        if stop is None:
            raise
        raise stop from None


@contextlib.contextmanager
def handlers_kept() -> Iterator[None]:
    """This process's SIGINT and SIGTERM handlers as they are now come back at the block's end, whatever
    a library installed meanwhile (``ray.init`` installs a SIGTERM handler that exits); such a handler's
    exit, SystemExit(SIGTERM), comes out as a KeyboardInterrupt, as Ctrl-C does. In the main thread only."""
    if not in_main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    try:
        yield
    except SystemExit as stop:
        if stop.code != signal.SIGTERM:
            raise
        raise KeyboardInterrupt from None
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)


def _raise_interrupt(signum, frame) -> None:
    request_stop()
    raise StopRequested


@contextlib.contextmanager
def stops_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM stops as Ctrl-C does (a KeyboardInterrupt into whatever runs, and
    a stop request to long work): a command's end work, outside a run's own handling."""
    if not in_main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise_interrupt) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        clear_stop()


def end_process(line: str | None, code: int = EXIT_STOPPED) -> None:
    """Say ``line`` (if any) on stderr and end this process now, without Python's exit (which would
    wait on Ray's processes, gone after a signal to the whole process group). The line is written
    past any lock another thread holds on ``sys.stderr``."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    if line is not None:
        try:
            os.write(sys.stderr.fileno(), (line + "\n").encode(errors="replace"))
        except (OSError, ValueError, AttributeError):  # a stderr without a file (a harness's)
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
    os._exit(code)


def ignore_stop_signals() -> None:
    """A helper process (a watcher, a guard) that outlives a signal to the whole group: the signal is
    its parent's to handle."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


class StartGuard:
    """Ctrl-C or SIGTERM while a command starts (Ray starting, workers building): nothing is written
    yet, and when the whole process group was signalled Ray's processes are gone, while the main
    thread may sit in Ray's C++ start-up, holding the interpreter lock, for many seconds. The guard
    ends the process at once with one line: the signal's C-level handler writes to
    ``signal.set_wakeup_fd``, read by a small watcher process (it needs no lock of this one), which
    says the line and ends this process. ``disarm()`` once the command has something to save (its
    own handlers take over); the watcher ends when its pipe closes."""

    def __init__(self, prog: str):
        self.prog, self.armed = prog, in_main_thread()
        if not self.armed:
            return
        read, self.write = os.pipe()
        os.set_blocking(self.write, False)
        line = f"{prog}: stopped while starting, before any iteration; nothing was written"
        # the watcher outlives the group's signal (it ignores it), reads one byte or the pipe's end
        script = (f"trap '' INT TERM; if [ -n \"$(head -c 1)\" ]; then echo '{line}' >&2; "
                  f"kill -KILL {os.getpid()}; fi")
        try:
            self.watcher = subprocess.Popen(["sh", "-c", script], stdin=read, close_fds=True)
        except OSError:
            self.watcher = None
        os.close(read)
        self.previous = {sig: signal.signal(sig, self._stop) for sig in STOP_SIGNALS}
        self.previous_fd = signal.set_wakeup_fd(self.write)

    def _stop(self, *signal_frame) -> None:
        """The Python-level handler, where it gets to run first: the watcher does the rest."""
        if self.watcher is None:  # no watcher could be started: end here
            end_process(f"{self.prog}: stopped while starting, before any iteration; nothing was written")
        self.watcher.wait()

    def disarm(self) -> None:
        """Stop guarding: signals go back to the handlers there were before, and the watcher ends."""
        if not self.armed:
            return
        self.armed = False
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        os.close(self.write)
        if self.watcher is not None:
            self.watcher.wait()

"""The run loop of a long solve: iterations until a stopping rule, evaluations for progress,
checkpoints at a cadence, and a clean stop on Ctrl-C or SIGTERM.

A stop request is honoured at the next safe point: the tables are only changed between two
shard calls, so a request that arrives while the coordinator waits on its shards (or on an
evaluation) interrupts that wait at once; the half-iteration in flight is dropped and the
checkpoint holds the state before it. This matters when the whole process group is signalled
(``timeout``, systemd, Slurm, Kubernetes): the workers may be gone already.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from distcfr.errors import BadParameter, WorkersLost
from distcfr.io.schema import MAX_ITERATION

if TYPE_CHECKING:
    from distcfr.solve.contract import SolverContract as Solver


class RunHooks:
    """What a run asks of its caller as it goes (:attr:`RunPlan.hooks`). Each method has a default that
    does nothing special: a caller overrides those it needs (a sampled run's policy, the command line's
    messages)."""

    reads = False  # whether the run takes value readings (:meth:`read`) beside its evaluations

    def evaluate(self, solver: Solver) -> float:
        """An evaluation of the run's progress: the average strategy's exploitability by default."""
        return solver.average_strategy().exploitability()

    def forecast(self, solver: Solver) -> float:
        """The seconds the next evaluation is expected to take (with :attr:`RunPlan.eval_share`, a due one
        waits until the evaluations' time with it stays within that share, a first one too)."""
        return 0.0

    def give_up(self) -> bool:
        """Asked after each evaluation of a run with a target: True ends the run (the target is out of reach)."""
        return False

    def keep_evaluating(self) -> bool:
        """Asked after each evaluation of a run without a target: False ends its progress evaluations."""
        return True

    def read(self, solver: Solver) -> None:
        """A cheap look at the average strategy (a sampled run's value readings), where :attr:`reads`."""

    def before_save(self, checkpoint) -> None:
        """Told each checkpoint of :attr:`RunPlan.checkpoint` before it is written (its size)."""

    def after_save(self, path: Path, iteration: int) -> None:
        """Told once a checkpoint's file is whole."""

    def at_end(self, solver: Solver) -> None:
        """The run's end work on the workers (a sampled run's final bracket and average), once the last
        checkpoint is written: workers lost there are recovered from as mid-run, and the iterations after
        the recovery point run again."""


@dataclass(frozen=True)
class RunPlan:
    """When a run stops, what it evaluates and where it saves; ``hooks`` is what it asks its caller."""

    iterations: int | None = None  # total, counting those done before a resume
    target: float | None = None  # stop once the average strategy's exploitability is at most this
    eval_every: int = 10
    evaluate: bool = False  # evaluate every eval_every even without a target (progress, plots)
    checkpoint: Path | None = None
    checkpoint_every: int = 100
    seconds: float | None = None  # stop after this much wall time (at an iteration's end)
    eval_share: float | None = None  # skip due evaluations while they took more than this share of the time
    # where a solver whose state lives on its workers keeps its recovery point when ``checkpoint`` is None
    # (saved at the same cadence); a run with neither recovers lost workers from its start
    recovery: Path | None = None
    # with hooks.reads, a reading is taken every eval_every iterations too, whatever the evaluations do, while
    # readings took at most read_share of the time; and once at half the time limit, whatever they took (where a
    # run's values still move is read from its second half)
    read_share: float = 0.05
    hooks: RunHooks = field(default_factory=RunHooks)

    def __post_init__(self):
        if self.iterations is None and self.target is None and self.seconds is None:
            raise BadParameter("give iterations, target_exploitability, a time limit or several")
        if self.iterations is not None and not 1 <= self.iterations <= MAX_ITERATION:
            raise BadParameter(f"iterations must be 1 to {MAX_ITERATION} (what the files hold), got {self.iterations}")
        if self.target is not None and not self.target > 0:
            raise BadParameter(f"the target exploitability must be positive, got {self.target}")
        if self.eval_every < 1 or self.checkpoint_every < 1:
            raise BadParameter(f"eval_every and checkpoint_every must be positive, got {self.eval_every}, "
                               f"{self.checkpoint_every}")


@dataclass
class RunResult:
    interrupted: bool = False
    wall_seconds: float = 0.0
    iterations_run: int = 0
    history: list[tuple[int, float]] = field(default_factory=list)  # (iteration, exploitability)
    workers_lost: bool = False  # stopped with the workers gone too (a signal to the whole group): nothing saved
    # lost workers the run recovered from: {"lost_at": iteration, "resumed_at": iteration, "seconds": the
    # recovery's, "waited": how long the call that failed had waited before the loss surfaced}
    recoveries: list[dict] = field(default_factory=list)
    checkpoint_seconds: list[float] = field(default_factory=list)  # how long each checkpoint took to write


@contextlib.contextmanager
def signals_held():
    """SIGINT and SIGTERM wait until the block ends (then their handlers run), where this thread can
    hold them (the main thread); elsewhere the block runs as it is."""
    held = (signal.SIGINT, signal.SIGTERM)
    main = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")
    if main:
        signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


class StopRequested(KeyboardInterrupt):
    """Raised by the signal handler into a wait on shards. A KeyboardInterrupt, because that is
    what Ray lets through a blocking ``ray.get``."""


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
def interrupts_unwrapped():
    """A signal handler's KeyboardInterrupt raised while numba's dispatcher runs Python code (as it
    sets up a compiled call) comes out of that call as a SystemError chained to it: within this
    block it comes out as itself, so the ``except KeyboardInterrupt`` around the work stops the run
    in one line instead of a traceback."""
    try:
        yield
    except SystemError as err:
        stop = interrupt_in(err)
        if stop is None:
            raise
        raise stop from None


def run(solver: Solver, plan: RunPlan, on_iteration: Callable[[Solver, float | None], None] | None = None,
        handle_signals: bool = True) -> RunResult:
    """Iterate ``solver`` as ``plan`` says; with ``handle_signals`` (main thread only), SIGINT and
    SIGTERM stop it at the next safe point. A final checkpoint is written when the plan names one,
    and then the plan's hooks' ``at_end`` work is done (a signal there raises KeyboardInterrupt)."""
    result, first = RunResult(), solver.iteration
    while True:
        _iterate(solver, plan, result, on_iteration, handle_signals)
        result.iterations_run = solver.iteration - first
        if result.interrupted:
            return result
        try:
            if plan.checkpoint:
                _save(solver, plan, result, plan.checkpoint)
            plan.hooks.at_end(solver)
            return result
        except WorkersLost as lost:
            _recover(solver, plan, result, lost, 0.0, None)


def _iterate(solver: Solver, plan: RunPlan, result: RunResult, on_iteration, handle_signals: bool) -> None:
    """The iterations of :func:`run` (adding to ``result``); after a stop, the checkpoint the plan names."""
    requested: list[int] | None = [] if handle_signals else None  # None: no handler of ours to wait for
    waiting = [False]  # the loop itself waits on an evaluation

    def on_signal(signum, frame):
        requested.append(signum)
        if len(requested) > 1 or waiting[0] or solver.waiting_on_shards:
            raise StopRequested
        if solver.state_on_workers and not solver.workers_alive():
            raise StopRequested  # the whole group was signalled: what the workers held is gone, nothing to keep whole

    signals = (signal.SIGINT, signal.SIGTERM) if handle_signals else ()
    previous = {sig: signal.signal(sig, on_signal) for sig in signals}
    start, eval_seconds, read_seconds = time.perf_counter(), 0.0, 0.0
    halfway = plan.seconds is None or result.wall_seconds >= plan.seconds / 2  # the half-time reading is taken

    def look(work):
        """``work(solver)`` while the loop waits on it (a signal stops the run at once): (its result, the
        seconds it took), or None where a worker was lost and recovered from (the loop goes on)."""
        waiting[0] = True
        began = time.perf_counter()
        try:
            with interrupts_unwrapped():
                return work(solver), time.perf_counter() - began
        except WorkersLost as lost:  # a sampled run's bracket or value reading is made where the rows lie
            _recover(solver, plan, result, lost, time.perf_counter() - began, requested)
            return None
        except KeyboardInterrupt:
            _stop_if_requested(requested)
        finally:
            waiting[0] = False

    evaluating = plan.evaluate
    spent = result.wall_seconds  # by the iterations before a recovery at the end: the time limit counts them
    try:
        while (plan.iterations is None or solver.iteration < plan.iterations) and solver.iteration < MAX_ITERATION:
            if requested:
                raise StopRequested
            began = time.perf_counter()
            try:
                solver.step()
            except StopRequested:
                raise
            except WorkersLost as lost:
                _recover(solver, plan, result, lost, time.perf_counter() - began, requested)
                continue
            except (Exception, KeyboardInterrupt):  # the signal took the workers down before it reached this loop
                _stop_if_requested(requested)
            expl = None
            last = (plan.iterations is not None and solver.iteration >= plan.iterations) or \
                solver.iteration >= MAX_ITERATION
            due = (plan.target is not None or evaluating) and (solver.iteration % plan.eval_every == 0 or last)
            if due and not last and plan.eval_share is not None:  # evaluations kept to their share of the time
                expected = plan.hooks.forecast(solver)
                due = eval_seconds + expected <= plan.eval_share * (time.perf_counter() - start)
            if due:
                looked = look(plan.hooks.evaluate)
                if looked is None:
                    continue
                expl, seconds = looked
                eval_seconds += seconds
                result.history.append((solver.iteration, expl))
                if plan.target is None:
                    evaluating = plan.hooks.keep_evaluating()
            now = time.perf_counter() - start
            half = not halfway and spent + now >= plan.seconds / 2
            if plan.hooks.reads and (half or (solver.iteration % plan.eval_every == 0 or last) and
                                            read_seconds <= plan.read_share * now):
                looked = look(plan.hooks.read)
                if looked is None:
                    continue
                read_seconds += looked[1]
                halfway = halfway or half
            if on_iteration is not None:
                on_iteration(solver, expl)
            point = plan.checkpoint or plan.recovery
            if point and solver.iteration % plan.checkpoint_every == 0:
                began = time.perf_counter()
                try:
                    _save(solver, plan, result, point)
                except WorkersLost as lost:
                    _recover(solver, plan, result, lost, time.perf_counter() - began, requested)
                    continue
            if expl is not None and plan.target is not None and (expl <= plan.target or plan.hooks.give_up()):
                break
            if plan.seconds is not None and spent + time.perf_counter() - start >= plan.seconds:
                break
    except StopRequested:
        result.interrupted = True
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    result.wall_seconds += time.perf_counter() - start
    if not result.interrupted:
        return
    if solver.state_on_workers and not solver.workers_alive():
        result.workers_lost = True  # their rows went with them: the last checkpoint written stays as it is
    elif plan.checkpoint:
        try:
            _save(solver, plan, result, plan.checkpoint)
        except WorkersLost:
            result.workers_lost = True  # the signal reached them too, after Ray's look at them above


def _stop_if_requested(requested: list[int] | None) -> None:
    """In an ``except`` block: a stop where a signal was ``requested`` (Ray's ``ray.get`` raises its own
    KeyboardInterrupt in place of the StopRequested raised into its wait), else the error again."""
    if requested:
        raise StopRequested from None
    raise  # the exception the caller is handling


MAX_RECOVERIES = 10  # lost workers a run goes on after; past this it stops (a cluster losing nodes all night)
# tries to rebuild the workers after one loss, 1, 2, ..., 7 seconds apart: a loaded machine can take tens of seconds
# to tell a killed node from the live ones
RECOVERY_ATTEMPTS = 8


def _recover(solver, plan: RunPlan, result: RunResult, lost: WorkersLost, waited: float,
             requested: list[int] | None) -> None:
    """Lost workers: the solver goes on from its recovery point (its last checkpoint, or its start),
    on the workers there are now; the run's bits are those of an undisturbed run. Workers lost
    while the new ones start (a node that fails late) are recovered from in the same way. A stop
    ``requested`` meanwhile (its handler runs once Python code runs again) stops instead."""
    if requested is not None:  # this run's handlers are in place: a signal on its way may be a stop
        _handle_pending_signals()
    if requested:
        raise StopRequested
    if not solver.state_on_workers or len(result.recoveries) >= MAX_RECOVERIES:
        raise lost
    from distcfr.solve.checkpoint import load_checkpoint

    began, lost_at = time.perf_counter(), solver.iteration
    point = plan.checkpoint or plan.recovery
    for attempt in range(1, RECOVERY_ATTEMPTS + 1):
        try:
            solver.recover(load_checkpoint(point) if point and Path(point).exists() else None)
            break
        except WorkersLost:  # the cluster had not yet told the lost node from the live ones: new workers went there
            if requested:
                raise StopRequested from None
            if attempt == RECOVERY_ATTEMPTS:
                raise
            time.sleep(attempt)
    result.recoveries.append({"lost_at": lost_at, "resumed_at": solver.iteration, "attempts": attempt,
                              "seconds": time.perf_counter() - began, "waited": waited})


SIGNAL_GRACE = 0.05  # seconds a recovery first waits for a signal on its way (recoveries take seconds)


def _handle_pending_signals() -> None:
    """Run the Python handlers of signals already received (PyErr_CheckSignals). A signal held by a
    save reaches the process through another thread, and Python runs its handler in the main thread
    only at its next check, which may come after the loss the signal caused is seen (a recovery would
    then come before the stop). A handler's exception (a stop) is raised here."""
    if threading.current_thread() is threading.main_thread():
        time.sleep(SIGNAL_GRACE)  # the other thread's turn to take the signal (a signal cuts the wait short)
        ctypes.pythonapi.PyErr_CheckSignals()


def _save(solver, plan: RunPlan, result: RunResult, path: Path) -> None:
    began = time.perf_counter()
    with signals_held():  # a stop request during a save waits for its end: the file is written whole
        checkpoint = solver.checkpoint()
        if path == plan.checkpoint:
            plan.hooks.before_save(checkpoint)
        checkpoint.save(path)
        if path == plan.checkpoint:
            plan.hooks.after_save(path, checkpoint.iteration)
    result.checkpoint_seconds.append(time.perf_counter() - began)

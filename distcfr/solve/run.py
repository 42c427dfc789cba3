"""The run loop of a long solve: iterations until a stopping rule, evaluations for progress,
checkpoints at a cadence, and a clean stop on Ctrl-C or SIGTERM.

A stop request (distcfr.stopping) is honoured at the next safe point: the tables are only changed
between two shard calls, so a request that arrives while the coordinator waits on its shards, on an
evaluation or on a recovery interrupts that wait at once; the half-iteration in flight is dropped,
the workers give up their evaluations, and the checkpoint holds the state before it. This matters
when the whole process group is signalled (``timeout``, systemd, Slurm, Kubernetes): the workers may
be gone already. The checkpoint is also written before the run's last evaluation, which may be its
final bracket: nothing solved is lost to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from distcfr.errors import BadParameter, WorkersLost
from distcfr.io.schema import MAX_ITERATION
from distcfr.stopping import RunSignals, StopRequested, interrupts_unwrapped, signals_held

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
    saved_at: int | None = None  # the iteration the plan's checkpoint file holds, once this run wrote it
    # rebuilding lost workers now; still True after a stop: the solver holds no whole state (its recovery point does)
    recovering: bool = False


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
            if plan.checkpoint and result.saved_at != solver.iteration:
                _save(solver, plan, result, plan.checkpoint)
            plan.hooks.at_end(solver)
            return result
        except WorkersLost as lost:
            try:
                _recover(solver, plan, result, lost, 0.0, None)
            except KeyboardInterrupt:  # a stop while the workers are rebuilt (the end's work has no handler of ours)
                result.interrupted = True
                return result


def _iterate(solver: Solver, plan: RunPlan, result: RunResult, on_iteration, handle_signals: bool) -> None:
    """The iterations of :func:`run` (adding to ``result``); after a stop, the checkpoint the plan names."""
    waiting = [False]  # the loop itself waits on an evaluation

    def interrupt_now() -> bool:
        """Whether a first stop request interrupts what runs now: a wait on shards or an evaluation, or
        any point once the whole group was signalled (what the workers held is gone, nothing to keep whole)."""
        return waiting[0] or result.recovering or solver.waiting_on_shards or \
            solver.state_on_workers and not solver.workers_alive()

    with RunSignals(interrupt_now, install=handle_signals) as requested:
        _iterations(solver, plan, result, on_iteration, requested, waiting)
    if result.interrupted and not result.recovering:  # stopped while rebuilding: the recovery point is the last state
        _save_after_stop(solver, plan, result)


def _save_after_stop(solver: Solver, plan: RunPlan, result: RunResult) -> None:
    """A stopped run's state saved in the plan's checkpoint, unless the workers went with it."""
    if solver.state_on_workers and not solver.workers_alive():
        result.workers_lost = True  # their rows went with them: the last checkpoint written stays as it is
        return
    solver.abandon_work()  # what the workers still evaluate is given up: the save below is not queued behind it
    if plan.checkpoint and result.saved_at != solver.iteration:
        try:
            _save(solver, plan, result, plan.checkpoint)
        except WorkersLost:
            result.workers_lost = True  # the signal reached them too, after Ray's look at them above


class _Schedule:
    """When a run's evaluations and value readings are due: every ``eval_every`` iterations and at the
    last, each kept to its share of the loop's time (evaluations by their forecast, when the plan gives
    ``eval_share``), a reading at half the time limit whatever it takes; and the time each took."""

    def __init__(self, plan: RunPlan, result: RunResult):
        self.plan, self.start = plan, time.perf_counter()
        self.eval_seconds, self.read_seconds = 0.0, 0.0
        self.evaluating = plan.evaluate  # evaluations without a target, while the hooks keep them on
        self.spent = result.wall_seconds  # by the iterations before a recovery at the end: the time limit counts them
        self.halfway = plan.seconds is None or result.wall_seconds >= plan.seconds / 2  # the half-time reading is taken

    def now(self) -> float:
        """Seconds since the loop began."""
        return time.perf_counter() - self.start

    def evaluation_due(self, solver: Solver, last: bool) -> bool:
        plan = self.plan
        due = (plan.target is not None or self.evaluating) and (solver.iteration % plan.eval_every == 0 or last)
        if due and not last and plan.eval_share is not None:  # evaluations kept to their share of the time
            expected = plan.hooks.forecast(solver)
            due = self.eval_seconds + expected <= plan.eval_share * self.now()
        return due

    def evaluated(self, seconds: float) -> None:
        self.eval_seconds += seconds
        if self.plan.target is None:
            self.evaluating = self.plan.hooks.keep_evaluating()

    def reading_due(self, solver: Solver, last: bool) -> bool | None:
        """Whether a value reading is due (None: no); the half-time one says so by ``self.half``."""
        plan, now = self.plan, self.now()
        self.half = not self.halfway and self.spent + now >= plan.seconds / 2
        return plan.hooks.reads and (self.half or (solver.iteration % plan.eval_every == 0 or last) and
                                     self.read_seconds <= plan.read_share * now)

    def read(self, seconds: float) -> None:
        self.read_seconds += seconds
        self.halfway = self.halfway or self.half

    def out_of_time(self) -> bool:
        return self.plan.seconds is not None and self.spent + self.now() >= self.plan.seconds


def _is_last(solver: Solver, plan: RunPlan) -> bool:
    """Whether the solver has done the plan's iterations (or the most a file holds)."""
    return (plan.iterations is not None and solver.iteration >= plan.iterations) or solver.iteration >= MAX_ITERATION


def _target_met(plan: RunPlan, expl: float | None) -> bool:
    """Whether an evaluation ``expl`` ends a run with a target: met, or out of reach as the hooks tell."""
    return expl is not None and plan.target is not None and (expl <= plan.target or plan.hooks.give_up())


def _saved_or_recovered(solver, plan: RunPlan, result: RunResult, path: Path, requested: RunSignals) -> bool:
    """Save the checkpoint ``path``: True, or False where workers were lost meanwhile and the run went on
    from its recovery point (the loop starts its iteration again)."""
    began = time.perf_counter()
    try:
        _save(solver, plan, result, path)
        return True
    except WorkersLost as lost:
        _recover(solver, plan, result, lost, time.perf_counter() - began, requested)
        return False


def _iterations(solver: Solver, plan: RunPlan, result: RunResult, on_iteration, requested: RunSignals,
                waiting: list[bool]) -> None:
    """The loop of :func:`_iterate`: iterations, evaluations, readings and checkpoints until a stopping
    rule or a stop request (``result.interrupted``)."""
    schedule = _Schedule(plan, result)

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
        except (KeyboardInterrupt, Exception):  # a signal's stop: work abandoned, or Ray's own interrupt
            requested.stop_if_requested()
        finally:
            waiting[0] = False

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
                requested.stop_if_requested()
            expl, last = None, _is_last(solver, plan)
            due = schedule.evaluation_due(solver, last)
            # the last evaluation may be the final one: what was solved is saved before it starts
            if due and last and plan.checkpoint and not _saved_or_recovered(solver, plan, result, plan.checkpoint,
                                                                             requested):
                continue
            if due:
                looked = look(plan.hooks.evaluate)
                if looked is None:
                    continue
                expl, seconds = looked
                result.history.append((solver.iteration, expl))
                schedule.evaluated(seconds)
            if schedule.reading_due(solver, last):
                looked = look(plan.hooks.read)
                if looked is None:
                    continue
                schedule.read(looked[1])
            if on_iteration is not None:
                on_iteration(solver, expl)
            point = plan.checkpoint or plan.recovery
            if point and solver.iteration % plan.checkpoint_every == 0 and result.saved_at != solver.iteration \
                    and not _saved_or_recovered(solver, plan, result, point, requested):
                continue
            if _target_met(plan, expl) or schedule.out_of_time():
                break
    except StopRequested:
        result.interrupted = True
    result.wall_seconds += schedule.now()


MAX_RECOVERIES = 10  # lost workers a run goes on after; past this it stops (a cluster losing nodes all night)
# tries to rebuild the workers after one loss, 1, 2, ..., 7 seconds apart: a loaded machine can take tens of seconds
# to tell a killed node from the live ones
RECOVERY_ATTEMPTS = 8


def _recover(solver, plan: RunPlan, result: RunResult, lost: WorkersLost, waited: float,
             requested: RunSignals | None) -> None:
    """Lost workers: the solver goes on from its recovery point (its last checkpoint, or its start),
    on the workers there are now; the run's bits are those of an undisturbed run. Workers lost
    while the new ones start (a node that fails late) are recovered from in the same way. A stop
    ``requested`` meanwhile (its handler runs once Python code runs again) stops instead."""
    if requested is not None:  # a signal on its way may be a stop
        requested.pending()
    if not solver.state_on_workers or len(result.recoveries) >= MAX_RECOVERIES:
        raise lost
    began, lost_at = time.perf_counter(), solver.iteration
    point = plan.checkpoint or plan.recovery
    result.recovering = True  # from here a stop request interrupts at once (the rebuilt workers are dropped)
    try:
        with interrupts_unwrapped():
            attempt = _rebuild(solver, point, requested)
    except KeyboardInterrupt:  # the stop, or Ray's own interrupt of a wait: the run stops with its recovery point
        raise StopRequested from None
    result.recovering = False
    launch = getattr(solver, "launch", None)  # None: a solver built without one (its shards in this process)
    result.recoveries.append({"lost_at": lost_at, "resumed_at": solver.iteration, "attempts": attempt,
                              "seconds": time.perf_counter() - began, "waited": waited,
                              "workers": launch.on_workers if launch is not None else None})


def _rebuild(solver, point: Path | None, requested: RunSignals | None) -> int:
    """The solver's workers rebuilt from ``point`` (its start where there is none yet), tried again while
    new workers went to a node the cluster had not yet given up; returns the attempts it took."""
    from distcfr.solve.checkpoint import load_checkpoint

    attempt = 1
    while True:
        try:
            solver.recover(load_checkpoint(point) if point and Path(point).exists() else None)
            return attempt
        except WorkersLost:  # the cluster had not yet told the lost node from the live ones: new workers went there
            if requested:
                raise StopRequested from None
            if attempt == RECOVERY_ATTEMPTS:
                raise
            time.sleep(attempt)
            attempt += 1


def _save(solver, plan: RunPlan, result: RunResult, path: Path) -> None:
    began = time.perf_counter()
    with signals_held():  # a stop request during a save waits for its end: the file is written whole
        checkpoint = solver.checkpoint()
        if path == plan.checkpoint:
            plan.hooks.before_save(checkpoint)
        checkpoint.save(path)
        if path == plan.checkpoint:
            result.saved_at = checkpoint.iteration
            plan.hooks.after_save(path, checkpoint.iteration)
    result.checkpoint_seconds.append(time.perf_counter() - began)

"""Where a solve runs, decided by the library for both modes: the worker count (one "auto" policy),
the memory estimate said before anything large is built and a run that cannot fit refused, the
embedded Ray started (or a cluster joined) and released with the solver.

    >>> with open_solver(load_game("leduc"), workers=0) as solver:    # doctest: +SKIP
    ...     solver.solve(iterations=1000).exploitability()
    >>> with open_solver(load_game("draw27(ranks=13,suits=4,hand=5,stacks=10)"), workers=2) as s:  # +SKIP
    ...     s.solve(iterations=3).meta["deals"]          # sampled: too large to enumerate

``open_solver`` picks the mode (``sampling=None``: sampled exactly when the game is too large to
enumerate) and ``resume_solver`` continues a checkpoint of either mode on any number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from distcfr.engine.calibration import EXACT_PASS_BYTES_PER_SECOND, RAY_WORTH_SECONDS, SAMPLED_DEALS_PER_SECOND
from distcfr.engine.deal_schedule import DealSchedule
from distcfr.engine.kernels import can_sample, sampled_kernel
from distcfr.engine.memory import (
    MemoryEstimate,
    available_bytes,
    check_fits,
    estimate,
    sampled_estimate,
    stack_cost,
)
from distcfr.engine.rules import AUTO
from distcfr.errors import BadParameter, TooFewCpus
from distcfr.games.base import Game
from distcfr.games.registry import load_game
from distcfr.solve.checkpoint import Checkpoint, SampledCheckpoint
from distcfr.solve.sampled_solver import SampledSolver
from distcfr.solve.solver import Solver

# progress brackets only where the memory estimate leaves this margin (a peak can come out above the estimate,
# and Ray's memory monitor kills workers at 95% of the node's memory)
BRACKET_MARGIN = 0.8
# after lost workers, how long the cluster may take to place the workers asked for before one fewer is asked for
REBUILD_READY_SECONDS = 10.0
RELEASE_SECONDS = 3.0  # after a stop or a failed start, how long stopping the workers and Ray may take


def auto_workers(pass_seconds: float, n_shards: int, address: str | None) -> int:
    """The "auto" worker count of both modes: in-process (0) for a pass shorter than a Ray round
    trip or a single shard without a cluster, else one worker per CPU (the cluster's, with an
    address), at most one per shard."""
    if address is None and (pass_seconds < RAY_WORTH_SECONDS or n_shards == 1):
        return 0
    from distcfr.distributed.launch import available_cpus

    return max(1, min(available_cpus(address), n_shards))


@dataclass
class Launch:
    """The shard-set factory a solver is built with: resolves the workers, says the memory estimate
    (to ``report``) and refuses a run that cannot fit, then starts the shards (Ray when there are
    workers). ``needs_bracket``: a sampled run that stops on an exploitability target, which needs
    brackets beside the workers. Remembers what it decided and whether it started Ray."""

    workers: int | str = AUTO
    address: str | None = None
    report: Callable[[str], None] | None = None
    needs_bracket: bool = False
    resolved: int = 0  # the worker count used
    started_ray: bool = False
    memory: MemoryEstimate | None = None
    progress_brackets: bool = True  # sampled: whether brackets fit beside the run
    seconds_to_start: float = 0.0  # building the shards (and streaming a checkpoint in, for a resume)
    on_workers: int = 0  # the workers the shards are on now (fewer than resolved at first after lost ones)

    def __post_init__(self):
        if self.workers != AUTO and (isinstance(self.workers, bool) or not isinstance(self.workers, int)
                                     or self.workers < 0):
            raise BadParameter(f"workers must be auto or a whole number >= 0, got {self.workers!r}")
        if self.workers == 0 and self.address is not None:
            raise BadParameter("a cluster address needs workers (0 solves in this process)")

    def exact(self, layout, n_shards: int):
        """The exact solver's factory: ``(layout, n_shards) -> shard set``."""
        from distcfr.engine.shard_set import LocalShards

        rebuilding = self.memory is not None  # after lost workers: on what the cluster has now
        seconds = estimate(layout, n_shards, 0).pass_bytes / EXACT_PASS_BYTES_PER_SECOND
        workers = self._resolve(seconds, n_shards)
        if rebuilding and workers:
            from distcfr.distributed.launch import ray_shard_set

            return self._rebuilt(workers, lambda n: ray_shard_set(layout.game.spec, n_shards, n, REBUILD_READY_SECONDS),
                                 lambda: LocalShards(layout, n_shards),
                                 lambda: self._check(estimate(layout, n_shards, 0), layout.game.spec))
        self.on_workers = workers
        self._check(estimate(layout, n_shards, workers), layout.game.spec)
        if workers == 0:
            return LocalShards(layout, n_shards)
        from distcfr.distributed.launch import ray_shard_set

        self._start_ray(workers)
        return ray_shard_set(layout.game.spec, n_shards, workers)

    def sampled(self, spec: str, n_blocks: int, seed: int, schedule: DealSchedule):
        """The sampled solver's factory: ``(spec, n_blocks, seed, schedule) -> class-block set`` (schedule:
        the deals of the button's and the big blind's half-iterations)."""
        from distcfr.engine.class_blocks import LocalClassBlocks

        rebuilding = self.memory is not None  # after lost workers: on what the cluster has now
        workers = self._resolve(schedule.per_iteration / 2 / SAMPLED_DEALS_PER_SECOND, n_blocks)
        if rebuilding and workers:
            from distcfr.distributed.launch import ray_sampled_shard_set

            kernel = sampled_kernel(load_game(spec))
            return self._rebuilt(workers, lambda n: ray_sampled_shard_set(spec, n_blocks, n, seed, schedule,
                                                                          REBUILD_READY_SECONDS),
                                 lambda: LocalClassBlocks(spec, n_blocks, seed, schedule),
                                 lambda: self._check(sampled_estimate(kernel, schedule.largest, n_blocks, 0), spec))
        kernel = sampled_kernel(load_game(spec))
        memory = sampled_estimate(kernel, schedule.largest, n_blocks, workers)
        available = self._check(memory, spec, stack_cost(kernel, schedule.largest, n_blocks, workers))
        self.progress_brackets = memory.with_bracket <= BRACKET_MARGIN * available
        if not self.progress_brackets and self.needs_bracket:
            raise BadParameter(f"--target-exploitability needs a bracket beside the workers: about "
                               f"{memory.with_bracket / 1e9:.1f} GB, {available / 1e9:.1f} GB are available; "
                               f"use --minutes or --iterations")
        if not self.progress_brackets:
            self._say(f"  progress brackets and value readings off: one needs {memory.bracket / 1e9:.1f} GB more "
                      f"beside the run; the final bracket runs once the current strategy is let go")
        self.on_workers = workers
        if workers == 0:
            return LocalClassBlocks(spec, n_blocks, seed, schedule)
        from distcfr.distributed.launch import ray_sampled_shard_set

        self._start_ray(workers)
        return ray_sampled_shard_set(spec, n_blocks, workers, seed, schedule)

    def _rebuilt(self, most: int, on_ray: Callable[[int], object], in_process: Callable[[], object],
                 check_in_process: Callable[[], object]):
        """The shards again after lost workers (``on_ray(n)``: on n workers), on as many of ``most`` as the
        cluster can place now (one fewer each time it cannot within REBUILD_READY_SECONDS), down to one,
        or ``in_process()`` (its memory checked first) when it has no CPU left; says how many the run
        goes on with."""
        from distcfr.distributed.runtime import alive_cpus

        before = self.on_workers
        for workers in range(min(most, alive_cpus()), 0, -1):
            try:
                shards = on_ray(workers)
            except TooFewCpus:  # a lost node may still count until Ray gives it up
                continue
            self.resolved = self.on_workers = workers
            if workers != before:
                self._say(f"  workers lost: the run goes on with {workers} of the {most} asked for (it had {before})")
            return shards
        check_in_process()
        self.on_workers = 0  # (resolved stays: Ray is still this run's to stop)
        self._say(f"  workers lost: the cluster has no CPU left for one; the run goes on in this process (it had "
                  f"{before})")
        return in_process()

    def _start_ray(self, workers: int) -> None:
        """Join the cluster or start the embedded Ray (once: a rebuild after lost workers reuses it)."""
        from distcfr.distributed.launch import start_ray

        self.started_ray = start_ray(workers, self.address) or self.started_ray

    def _resolve(self, pass_seconds: float, n_shards: int) -> int:
        workers = auto_workers(pass_seconds, n_shards, self.address) if self.workers == AUTO else self.workers
        self.resolved = min(int(workers), n_shards)
        return self.resolved

    def _check(self, memory: MemoryEstimate, spec: str, stacks: tuple[int, int] | None = None) -> int:
        """Say the estimate (and with ``stacks``, :func:`~distcfr.engine.memory.stack_cost`'s, what a stack
        costs and how many fit here); refuse what does not fit. Returns the bytes available."""
        self.memory = memory
        available = available_bytes()
        advice, per_stack_text = "use fewer stacks, a smaller game or a cluster (--address)", ""
        if stacks is not None:
            base, per_stack = stacks
            fit = max(0, int((available - base) // max(per_stack, 1)))
            per_stack_text = f"; a stack costs about {per_stack / 1e9:.2g} GB, {fit:,} fit here at once"
            advice = (f"{fit:,} stacks fit here, a stack costs about {per_stack / 1e9:.2g} GB; use fewer stacks, "
                      "a smaller game or a cluster (--address) with that much memory over its workers")
        self._say(memory.describe() + f" of {available / 1e9:.1f} GB available" + per_stack_text)
        return check_fits(memory.this_machine, spec, available, advice)

    def _say(self, text: str) -> None:
        if self.report is not None:
            self.report(text)

    def workers_alive(self) -> bool:
        """Whether the shards' Ray is still there (always, in-process)."""
        if not self.resolved:
            return True
        from distcfr.distributed.runtime import ray_alive

        return ray_alive()

    def release(self, close: Callable[[], None], deadline: float | None = None) -> bool:
        """Run ``close`` (the shard set's) and stop the Ray this launch started, giving up after
        ``deadline`` seconds (None: wait); returns whether it finished (see
        distcfr.distributed.runtime.release: after a signal to the whole process group Ray may be gone)."""
        if not self.resolved:
            close()
            return True
        from distcfr.distributed.runtime import release

        return release(close, self.started_ray, deadline)


def use_sampling(game: Game, sampling: bool | None) -> bool:
    """Whether ``game`` is solved by sampling: as asked, or (None) exactly when it is too large to
    enumerate. BadParameter when the game cannot be solved the way asked."""
    problem = game.exact_size_problem()
    if sampling is False and problem:
        raise BadParameter(f"{problem}: it can only be solved by sampling")
    if (sampling or problem) and not can_sample(game):
        if problem and not sampling:
            raise BadParameter(f"{problem}; {game.name} has no sampled solver (yet) to take it instead")
        raise BadParameter(f"{game.name} cannot be solved by sampling" + (f" ({problem})" if problem else ""))
    return bool(sampling or problem)


def open_solver(game: Game | str, *, sampling: bool | None = None, workers: int | str = AUTO,
                address: str | None = None, algorithm: str = AUTO, updates: str | None = None,
                shards: int | None = None, batch: int | None = None, seed: int | None = None,
                deal_shares: tuple[int, int] | None = None, report: Callable[[str], None] | None = None,
                needs_bracket: bool = False, **rule_params: float | None) -> Solver | SampledSolver:
    """A solver of ``game`` (a Game or a spec) in the right mode, its shards on ``workers`` workers
    (``"auto"``, or 0: in this process) of the embedded Ray or of the cluster at ``address``. The
    memory estimate goes to ``report`` (e.g. ``print``) and a solve that cannot fit is refused.
    Use it as a context manager (or ``close()`` it): that ends its workers and the Ray it started.
    Options a mode cannot use are refused (BadParameter), never ignored: exact solves draw no
    deals (``batch``, ``seed``, ``deal_shares``); sampled solves update alternately with a rule in weighted form
    (``updates="simultaneous"`` and rule parameters are refused)."""
    game = load_game(game) if isinstance(game, str) else game
    launch = Launch(workers, address, report, needs_bracket)
    if use_sampling(game, sampling):
        abstract = game.sampled_form()
        if abstract is not game and report is not None:
            report(f"sampling solves {abstract.spec}: the card abstraction its sampled kernel needs (docs/NL27.md)")
        game = abstract
        if updates not in (None, "alternating"):
            raise BadParameter(f"a sampled solve updates the players alternately, not {updates}")
        given = sorted(k for k, v in rule_params.items() if v is not None)
        if given:
            raise BadParameter(f"{', '.join(given)}: no parameter applies to a sampled solve's rule")
        return _started(launch, lambda: SampledSolver(game, algorithm, batch, 0 if seed is None else seed, shards,
                                                      shard_set=launch.sampled, deal_shares=deal_shares))
    if batch is not None or seed is not None or deal_shares is not None:
        raise BadParameter("batch, seed and deal shares are a sampled solve's (an exact solve enumerates every deal)")
    return _started(launch, lambda: Solver(game, algorithm, updates or "alternating", shards, shard_set=launch.exact,
                                           **rule_params))


def resume_solver(checkpoint: Checkpoint | SampledCheckpoint | str, *, workers: int | str = AUTO,
                  address: str | None = None, report: Callable[[str], None] | None = None,
                  needs_bracket: bool = False) -> Solver | SampledSolver:
    """A solver that continues ``checkpoint`` (or the checkpoint file at that path) bitwise, on any
    number of workers; as :func:`open_solver` otherwise."""
    if isinstance(checkpoint, str):
        from distcfr.solve.checkpoint import load_checkpoint

        checkpoint = load_checkpoint(checkpoint)
    launch = Launch(workers, address, report, needs_bracket)
    solver_class = SampledSolver if checkpoint.mode == "sampled" else Solver
    factory = launch.sampled if checkpoint.mode == "sampled" else launch.exact
    return _started(launch, lambda: solver_class.from_checkpoint(checkpoint, shard_set=factory))


def _started(launch: Launch, build: Callable):
    """``build()`` the solver with ``launch`` as its shard factory, timed; the Ray the launch started
    is stopped again when building fails."""
    began = time.perf_counter()
    try:
        solver = build()
    except BaseException:
        launch.release(lambda: None, deadline=RELEASE_SECONDS)
        raise
    launch.seconds_to_start = time.perf_counter() - began
    solver.launch = launch
    return solver


__all__ = ["Launch", "auto_workers", "open_solver", "resume_solver", "use_sampling"]

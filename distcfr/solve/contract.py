"""The contract every solver keeps: what :func:`distcfr.solve.run.run`, checkpoints and the command
line drive. Two solvers keep it, one per way of meeting chance: ``Solver`` enumerates every deal
(distcfr.solve.solver), ``SampledSolver`` samples them (distcfr.solve.sampled_solver).

A solver steps whole iterations (alternating updates: the first player's half, then the second's;
``phase`` is the player who updates next, so a run stopped between the halves resumes there),
says whether a stop request may interrupt it right now (``waiting_on_shards``: only while it waits
on its shards, never while its tables change), saves its state as a checkpoint that continues
bitwise on any number of workers, and gives its average strategy. A solver whose state lives on
its workers (``state_on_workers``) also has ``recover(checkpoint)``: go on after lost workers from
one of the run's own checkpoints (None: from its start), on the workers there are now.

Evaluation is part of the contract too, so that no caller asks which kind of solver it holds:
``bracket`` is the average strategy's exploitability per stack as an interval (a sampled bracket; the
exact solver's is exact: both ends equal, no error), ``values`` the button's value per stack with
its standard error (0 where exact), ``deals_done`` the deals the run has evaluated, and
``release_strategy`` lets the current strategy's memory go before a costly end-of-run evaluation
(a further iteration publishes it again)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from distcfr.engine.rules import Rule
    from distcfr.evaluate.sampled import Bracket
    from distcfr.games.base import Game


@runtime_checkable
class SolverContract(Protocol):
    mode: ClassVar[str]  # "exact" or "sampled": which checkpoint and strategy kinds it writes
    state_on_workers: ClassVar[bool]  # whether its tables live on the workers (lost with them) or here
    game: Game
    rule: Rule
    updates: str  # "alternating" or "simultaneous"
    n_shards: int  # deal shards (exact) or class blocks (sampled): fixed by the run, not by the workers
    iteration: int  # complete iterations
    phase: int  # the player who updates next within iteration + 1

    @property
    def waiting_on_shards(self) -> bool:
        """Whether a stop request may interrupt the solver now without leaving a table half-written."""

    def step(self) -> None:
        """One iteration (after an interrupted one: what is left of it)."""

    def checkpoint(self):
        """The solver's state: ``.save(path)`` writes it; ``from_checkpoint`` continues it."""

    def average_strategy(self):
        """The average strategy (a Strategy or a ClassStrategy): ``save``, ``exploitability``."""

    @property
    def deals_done(self) -> int:
        """Deals evaluated so far: sampled, or every deal of the game once per player update."""

    def bracket(self, per_class: int | None = None, **settings) -> Bracket:
        """The average strategy's exploitability per stack as a Bracket (``interval()``, ``high``, ``value``);
        ``per_class`` and ``settings`` (seed, rounds, focus) steer a sampled one."""

    def values(self, per_class: int) -> tuple[np.ndarray, np.ndarray]:
        """(value, standard error) per stack: the average strategy's value for the first player."""

    def release_strategy(self) -> None:
        """Let the current strategy's memory go (a run's end); a further iteration publishes it again."""

    def describe(self) -> dict:
        """Where the shards run: {"workers", "nodes", "shards"}."""

    def workers_alive(self) -> bool:
        """Whether the workers holding the shards are still reachable."""

    def abandon_work(self) -> None:
        """On a stop request: the workers give up the evaluations they run or have queued."""

    def close(self, deadline: float | None = None) -> bool:
        """End the workers (and the Ray its launch started); see :meth:`SolverLifetime.close`."""


class SolverLifetime:
    """What both solvers share of their lifetime: a shard set (``self.shards``) they own, and the
    :class:`~distcfr.solve.launch.Launch` that started it, if any; closing ends both. A context manager."""

    launch = None  # the distcfr.solve.launch.Launch that started the shards, set by open_solver / resume_solver

    def describe(self) -> dict:
        return self.shards.describe()

    def workers_alive(self) -> bool:
        """Whether the workers holding the shards are still reachable (a signal to the whole process
        group may have ended them)."""
        return self.launch is None or self.launch.workers_alive()

    def abandon_work(self) -> None:
        """A stop request: the workers give up the evaluations they run or have queued, so that a
        checkpoint and the strategy can be read from them within seconds (in-process work hears the
        request itself: distcfr.stopping)."""
        self.shards.abandon()

    def close(self, deadline: float | None = None) -> bool:
        """End the shards' workers and the Ray the launch started, waiting at most ``deadline``
        seconds (None: as long as it takes); returns whether that finished (after a signal to the
        whole process group Ray's own processes may be gone, and a caller then just exits)."""
        if self.launch is None:
            self.shards.close()
            return True
        return self.launch.release(self.shards.close, deadline)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

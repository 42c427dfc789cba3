"""A run as its options ask for it, from the plan to the files it ends with: the plan from the stopping
rules and checkpoint options, what ends a run early (a stop, workers gone with the state they held),
and the summary and strategy file each mode ends with. What it has to show goes through its hooks
(``say``, ``tell``, ``announce_file``, ``show``, ``present``), which the command line (distcfr.train)
prints; the defaults say nothing.

``options`` is the command line's namespace (distcfr.train's parser), or any object with its attributes.
"""

from __future__ import annotations

import glob
import json
import tempfile
import time
import traceback
from pathlib import Path

from distcfr.distributed import head_watch
from distcfr.errors import DistcfrError, WorkersLost
from distcfr.io.paths import partial_writes, write_atomic
from distcfr.solve import sampled_run
from distcfr.solve.exact_run import finish_exact
from distcfr.solve.launch import RELEASE_SECONDS
from distcfr.solve.run import RunHooks, RunPlan
from distcfr.solve.sampled_run import BracketOptions, SampledRun, SampledRunReport, add_exact_or_hint
from distcfr.stopping import end_process, signals_held

EXIT_ERROR, EXIT_FAILED = 2, 1  # a DistcfrError's exit status (as main's), any other error's


def release(solver, stopped: bool, said: bool, error: BaseException | None = None) -> None:
    """Stop the workers (and the embedded Ray). After a stop or an error on Ray, give it a few
    seconds; if the signal reached Ray's processes too (they are gone), end this process now, with
    a line unless one was ``said`` already: the files are saved or were never going to be. An
    ``error`` on its way out (not a stop) is what that line says: it must not be lost."""
    if solver is None:
        return
    if stopped and not solver.workers_alive() or not solver.close(RELEASE_SECONDS if stopped else None):
        if error is not None and not isinstance(error, KeyboardInterrupt):
            end_process(error_line(error), EXIT_ERROR if isinstance(error, DistcfrError) else EXIT_FAILED)
        else:
            end_process(None if said else "distcfr.train: stopped; Ray's processes were stopped too (a signal to "
                        "the whole process group)")


def error_line(error: BaseException) -> str:
    """What ends a run that failed: one line for a DistcfrError (bad input, a lost cluster), the
    traceback for anything else (a fault of distcfr's own, to be reported)."""
    if isinstance(error, DistcfrError):
        return f"distcfr.train: error: {error}"
    return "".join(traceback.format_exception(error)).rstrip()


class RunSession(RunHooks, SampledRunReport):
    """The mode-independent part of a run: its plan, and its end (:meth:`conclude`). ``resumed``: it
    continues a checkpoint. A mode's session adds ``make_plan`` and ``finish``."""

    saves_unevaluated_on_stop = False  # a stopped run's strategy is saved without its end work, even in-process

    def __init__(self, options, game, resumed: bool):
        self.args, self.game, self.resumed = options, game, resumed
        self.saved: tuple[str, int] | None = None  # (path, iteration) of the last checkpoint whole on disk

    # ---- hooks: what the caller shows (nothing by default) ----------------------------------------------
    def tell(self, text: str) -> None:
        """A line of the run's result (an interrupted run's files)."""

    def announce_file(self, path, nbytes: int, what: str) -> None:
        """A file of ``nbytes`` is about to be written."""

    def show(self, summary: dict) -> None:
        """The run's result, once its files are written."""

    def present(self, solver, summary: dict, strategy, result) -> None:
        """What the caller makes of the saved strategy beside the summary (tables, plots)."""

    def say_head_line(self) -> None:
        """On a cluster: the one line a lost head ends the run with (distcfr.distributed.head_watch), as the
        run stands now: which checkpoint continues it, from which iteration, or that none does."""
        if not self.args.address:
            return
        if self.saved is None:
            advice = ("no checkpoint was saved, so there is nothing to resume: run it again"
                      + ("" if self.args.checkpoint else " (--checkpoint PATH keeps one)"))
        else:
            path, iteration = self.saved
            advice = f"to go on from iteration {iteration}, run it with --resume {path} (any cluster, or --workers 0)"
        head_watch.say("distcfr.train: error: the Ray cluster's head at {address} is gone ({why}), and the run "
                       f"with it; {advice}")

    # ---- the plan --------------------------------------------------------------------------------------
    def limits(self, target: float | None = None, minutes: float | None = None) -> tuple:
        """(target, seconds): the options' stopping rules, or the mode's defaults ``target`` and
        ``minutes`` when they give none."""
        args = self.args
        if args.iterations is not None or args.target_exploitability is not None or args.minutes is not None:
            target, minutes = args.target_exploitability, args.minutes
        return target, minutes * 60 if minutes else None

    def plan(self, target: float | None, seconds: float | None, hooks: RunHooks, **extra) -> RunPlan:
        """The run's plan from the options and the stopping rules."""
        args = self.args
        if args.checkpoint:
            self.tidy_if_lost(partial_writes(args.checkpoint))
        return RunPlan(args.iterations, target, args.eval_every, checkpoint=args.checkpoint and Path(args.checkpoint),
                       checkpoint_every=args.checkpoint_every, seconds=seconds, hooks=hooks, **extra)

    def make_plan(self, solver) -> RunPlan:
        raise NotImplementedError

    def begin(self, solver) -> RunPlan:
        """The plan of a run of ``solver`` starting now."""
        self.where = solver.describe()
        self.first_iteration, self.start = solver.iteration, time.perf_counter()
        self.progress = None
        plan = self.make_plan(solver)
        if self.where["workers"]:
            from distcfr.distributed.runtime import silence_ray_logs

            silence_ray_logs()
        return plan

    def after_save(self, path, iteration: int) -> None:
        self.saved = (str(path), iteration)
        self.say_head_line()

    def before_save(self, checkpoint) -> None:
        self.announce_file(self.args.checkpoint, checkpoint.nbytes, "checkpoint")

    def tidy_if_lost(self, pattern: str) -> None:
        """Remove what matches the glob ``pattern`` if a lost head ends the run (distcfr.distributed.head_watch)."""
        if self.args.address:
            head_watch.tidy(pattern)

    # ---- the end ---------------------------------------------------------------------------------------
    def conclude(self, solver, result, unwrapped) -> dict:
        """The run's summary after ``result`` (its RunResult), its files written: what ends it early, or the
        mode's end work (``unwrapped()``: the context in which a signal interrupts it)."""
        if result.workers_lost:
            self.end_with_workers_gone(solver)
        if result.recovering:
            self.end_while_recovering()
        if result.interrupted and (self.where["workers"] or self.saves_unevaluated_on_stop):
            return self.interrupted(solver)
        try:
            with unwrapped():
                summary = self.finish(solver, result)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM during the end's work (the final bracket, the files)
            return self.interrupted(solver)
        summary["recoveries"] = result.recoveries + getattr(solver, "recoveries", [])  # an exact run's are its own
        summary["this_run"] = {"iterations": result.iterations_run, "wall_seconds": result.wall_seconds,
                               "resumed_from": self.args.resume if self.resumed else None, **self.this_run(solver)}
        summary.update(self.where)
        summary["workers_at_end"] = solver.launch.on_workers  # fewer than "workers" after lost ones
        summary["memory"] = solver.launch.memory.as_dict()
        if self.args.summary_json:
            write_atomic(self.args.summary_json, (json.dumps(summary, indent=2) + "\n").encode())
        self.show(summary)
        summary["interrupted"] = result.interrupted
        return summary

    def finish(self, solver, result) -> dict:
        raise NotImplementedError

    def end_with_workers_gone(self, solver) -> None:
        """The signal reached the workers too and their rows went with them: one line, and this
        process ends now (Ray's processes are gone: its own exit would wait a minute on them)."""
        checkpoint = self.args.checkpoint
        last = f"; {checkpoint} keeps its last save" if checkpoint and Path(checkpoint).exists() else ""
        end_process(f"distcfr.train: stopped at iteration {solver.iteration}; the workers were stopped too (a signal "
                    f"to the whole process group), and the state they held with them{last}")

    def end_while_recovering(self) -> None:
        """Stopped while new workers were built after lost ones: they hold no whole state, and the run's
        last state is its recovery point. One line, and this process ends now."""
        checkpoint = self.args.checkpoint
        kept = (f"{checkpoint} keeps its last save" if checkpoint and Path(checkpoint).exists() else
                "nothing was saved (--checkpoint PATH keeps one)")
        end_process(f"distcfr.train: stopped while going on after lost workers; {kept}")

    def interrupted(self, solver) -> dict:
        """The signal may have reached the workers too: save what the coordinator holds, unevaluated."""
        with signals_held():  # a second signal waits until the strategy is written
            try:
                if solver.workers_alive():
                    solver.abandon_work()  # the evaluation cut short: the workers hand over their rows at once
                strategy = solver.average_strategy()
            except WorkersLost:  # they went after the run's own look at them (Ray had not told yet)
                self.end_with_workers_gone(solver)
            strategy.save(self.args.out)
        self.tell(f"interrupted {self.game.spec} at iteration {solver.iteration}{self.deals_text(solver)}: average "
                  f"strategy written to {self.args.out}"
                  + (f", checkpoint {self.args.checkpoint}" if self.args.checkpoint else "") + self.unevaluated_text())
        return {"interrupted": True}

    def this_run(self, solver) -> dict:
        """What the summary's ``this_run`` adds for the mode."""
        return {}

    def deals_text(self, solver) -> str:
        return ""

    def unevaluated_text(self) -> str:
        return f" (not evaluated: python -m distcfr.show {self.args.out})"


class ExactRunSession(RunSession):
    """An exact run: evaluated exactly as it goes where the caller shows it, its break-even stacks
    refined at the end where asked (distcfr.solve.exact_run)."""

    evaluates = True  # progress and plots show the exploitability

    def make_plan(self, solver) -> RunPlan:
        return self.plan(*self.limits(target=self.game.default_target), self, evaluate=self.evaluates)

    def finish(self, solver, result) -> dict:
        args = self.args
        summary, strategy = finish_exact(self.game, solver, result, args.refine_break_even, self.say)
        self.announce_file(args.out, strategy.probs.nbytes, "average strategy")
        strategy.save(args.out)
        self.strategy, self.interrupted_run = strategy, result.interrupted
        self.present(solver, summary, strategy, result)
        return summary


class SampledRunSession(RunSession):
    """A sampled run: its policy is :class:`~distcfr.solve.sampled_run.SampledRun`; lost workers are
    recovered from a checkpoint of its own where it keeps none; it ends with the final bracket."""

    saves_unevaluated_on_stop = True

    def make_plan(self, solver) -> RunPlan:
        args = self.args
        recovery = None
        if solver.launch.resolved and not args.checkpoint:  # lost workers are recovered from a point of its own
            self.recovery_folder = tempfile.TemporaryDirectory(prefix="distcfr-recovery-")
            recovery = Path(self.recovery_folder.name) / "recovery.ckpt"
            self.tidy_if_lost(glob.escape(self.recovery_folder.name))
        target, seconds = self.limits(minutes=sampled_run.DEFAULT_MINUTES)  # read here: tests shorten it
        settings = BracketOptions(args.bracket_samples, args.bracket_rounds, args.bracket_focus)
        self.policy = policy = SampledRun(solver, settings, self, iterations=args.iterations, target=target,
                                          seconds=seconds, eval_every=args.eval_every,
                                          fits=solver.launch.progress_brackets)
        self.first_deals = policy.first_deals
        if policy.end_bound() and not args.quiet:
            self.say("  " + policy.end_bound())
        return self.plan(target, seconds, policy, evaluate=policy.evaluates, eval_share=policy.eval_share,
                         recovery=recovery, read_share=policy.read_share)

    def this_run(self, solver) -> dict:
        return {"deals": solver.deals_done - self.first_deals}

    def deals_text(self, solver) -> str:
        return f" ({solver.deals_done:,} deals)"

    def unevaluated_text(self) -> str:
        return ""

    def finish(self, solver, result) -> dict:
        args = self.args
        strategy = self.policy.result[2]
        solver.close()
        summary = self.policy.end_summary(solver, result, self.where["workers"])
        add_exact_or_hint(summary, self.game, strategy, bool(args.exact_exploitability), self.say)
        if args.checkpoint or args.resume:
            summary["checkpoint"] = {
                "path": str(args.checkpoint or args.resume),
                "resume_seconds": solver.launch.seconds_to_start if self.resumed else None,
                "write_seconds": result.checkpoint_seconds[-1] if result.checkpoint_seconds else None,
                "bytes": Path(args.checkpoint).stat().st_size if args.checkpoint else None}
        strategy.meta["evaluation"] = summary["per_variant"]
        self.announce_file(args.out, sum(t.size * 2 for t in strategy.tables.values()), "average strategy")
        strategy.save(args.out)
        self.present(solver, summary, strategy, result)
        return summary


"""python -m distcfr.train: solve a game and write its average strategy.

Examples:
  python -m distcfr.train                                   # Leduc to exploitability 1e-4
  python -m distcfr.train --game kuhn --iterations 2000 --out kuhn.msgpack
  python -m distcfr.train --game leduc --algorithm cfr+ --target-exploitability 1e-5 \\
      --summary-json leduc.json
  python -m distcfr.train --game "draw27(ranks=13,suits=1,hand=1,stacks=1.5:10:0.5)"
  python -m distcfr.train --game "draw27(ranks=7,suits=2,hand=2,stacks=1.5:10:0.5)" \\
      --workers 2 --checkpoint run.ckpt --checkpoint-every 50    # rerun the same line to resume
  ray start --head ... && python -m distcfr.train --address auto --game ...   # on a cluster
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from distcfr.cli import OneLineParser, StartGuard, check_distinct, positive_number, whole_number
from distcfr.distributed import head_watch
from distcfr.engine.calibration import BRACKET_DEAL_COST
from distcfr.engine.rules import AUTO, RULES
from distcfr.engine.sampled_bracket import BRACKET_CHUNK as MAX_BRACKET_SAMPLES
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS, drawn_deals, refine_steps
from distcfr.errors import BadParameter, DistcfrError, WorkersLost
from distcfr.evaluate.break_even import refine_crossings
from distcfr.evaluate.class_strategy import (
    BRACKET_DEALS,
    MAX_PER_CLASS,
    check_exact_reach,
    default_per_class,
    exact_seconds,
)
from distcfr.evaluate.reach import noise_bound, out_of_reach, target_summary
from distcfr.evaluate.summary import add_exact, bracket_cost, exact_summary, sampled_summary, settling
from distcfr.evaluate.tables import render_tables
from distcfr.evaluate.units import amount, exploitability_text
from distcfr.games.registry import REGISTRY, defaults_help, load_game
from distcfr.io.paths import check_writable, partial_writes, write_atomic
from distcfr.present.lowball_groups import group_report
from distcfr.present.run_summary import duration, out_of_reach_text, print_result, print_sampled, target_head
from distcfr.progress import Progress
from distcfr.solve.checkpoint import UPDATES, load_checkpoint
from distcfr.solve.launch import RELEASE_SECONDS, open_solver, resume_solver, use_sampling
from distcfr.solve.run import RunPlan, interrupts_unwrapped, run, signals_held
from distcfr.solve.sampled_solver import BATCH_PER_CLASS, DEFAULT_BATCH, check_deal_shares

DEFAULT_GAME = "leduc"
_positive_int = whole_number(1, "positive")
_non_negative_int = whole_number(0, "0 (in-process) or more")
_bracket_samples = whole_number(2, "at least 2", MAX_BRACKET_SAMPLES,
                                " deals per hand class (one chunk of the bracket's work)")
MAX_BRACKET_ROUNDS = 4
_bracket_rounds = whole_number(0, "0 (no refinement) or more", MAX_BRACKET_ROUNDS,
                               " (a round draws 4x all a close class had: the 4th, 500x its first samples)")
MAX_BRACKET_FOCUS = 64
_bracket_focus = whole_number(0, "0 (no focus round) or more", MAX_BRACKET_FOCUS,
                              " (times each player's first deals)")


def parse_deal_shares(text: str) -> tuple[int, int]:
    """``A:B`` (``--deal-shares``): the button's half draws A deals per deal of the batch, the big
    blind's B; argparse's error (one line) unless two whole numbers the solver accepts."""
    parts = text.split(":")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"not BUTTON:BIG_BLIND (two whole numbers, e.g. 4:1): {text!r}")
    try:
        return check_deal_shares(int(p) for p in parts)
    except BadParameter as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _path(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    return text


def _workers(text: str):
    return text if text == "auto" else _non_negative_int(text)


def _rule_params() -> dict[str, list[tuple[str, float, str]]]:
    """Every rule parameter: name -> [(rule, default, meaning)]."""
    params: dict[str, list] = {}
    for kind in RULES.values():
        for name, default in kind.params.items():
            params.setdefault(name, []).append((kind.name, default, kind.param_help.get(name, "")))
    return params


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m distcfr.train",
        description="Solve a two-player card game with a CFR-family algorithm; print the exact "
        "exploitability and value of the average strategy and write it as a msgpack file.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", metavar="SPEC",
                        help=f"game spec, name or name(key=value,...) (default: {DEFAULT_GAME}, or the "
                        f"checkpoint's); games: {', '.join(REGISTRY)}")
    stop = parser.add_argument_group(
        f"when to stop (either or both; default: the game's target: {defaults_help()})")
    stop.add_argument("--iterations", type=_positive_int, metavar="N",
                      help="total iterations (a resumed run counts the ones already done)")
    stop.add_argument("--target-exploitability", type=positive_number, metavar="E",
                      help="stop once the average strategy is at most E from a Nash equilibrium, in the game's "
                      "unit: BB per hand for draw27, chips per game for the others; sampled: once the upper end "
                      "of the bracket's 95%% interval is at most E BB per hand at every stack (brackets of a "
                      "quarter of --bracket-samples deals per class every --eval-every iterations, kept to "
                      f"{100 * EVAL_SHARE:g}%% of the run's time; one that meets E is checked on all of them)")
    stop.add_argument("--minutes", type=positive_number, metavar="M",
                      help="stop after M minutes of solving, at the end of an iteration (default for a sampled "
                      "solve without another rule: 10)")
    algo = parser.add_argument_group("algorithm")
    algo.add_argument("--algorithm", choices=(AUTO, *RULES), metavar="{" + ",".join((AUTO, *RULES)) + "}",
                      help="update rule (default: auto, the rule measured fastest on the game, see above): "
                      + "; ".join(f"{k.name}: {k.summary}" for k in RULES.values()))
    algo.add_argument("--updates", choices=UPDATES,
                      help="alternating or simultaneous player updates (default: alternating; sampled: "
                      "alternating only)")
    for name, owners in _rule_params().items():
        algo.add_argument(f"--{name}", type=float, metavar="X", help="; ".join(
            f"{rule} {meaning} (default {default:g})" for rule, default, meaning in owners))
    algo.add_argument("--eval-every", type=_positive_int, default=10, metavar="K",
                      help="evaluate the exploitability every K iterations: exactly, or sampled by a bracket "
                      "(default: 10)")
    algo.add_argument("--refine-break-even", type=positive_number, metavar="TOL",
                      help="for a list of stacks: refine each break-even stack by bisection (solving "
                      "single stacks) until it is known to within TOL BB")
    sampled = parser.add_argument_group(
        "sampling (draw27 configurations too large to enumerate, e.g. 5 cards from 52, are sampled on their own)")
    sampled.add_argument("--sampling", action="store_true",
                         help="solve draw27 by chance-sampled CFR even where it could be enumerated")
    sampled.add_argument("--batch", type=_positive_int, metavar="N",
                         help=f"sampled deals per player update (default: {BATCH_PER_CLASS} per hand class, "
                         f"at least {DEFAULT_BATCH:,}: 1,075,672 for 5 cards from 52)")
    sampled.add_argument("--deal-shares", type=parse_deal_shares, metavar="A:B",
                         help="the button's half-iteration draws A deals per deal of the batch, the big blind's B "
                         f"(default: 4:1 on decks of {DEFAULT_BATCH // BATCH_PER_CLASS:,} hand classes or more, "
                         "such as 5 cards from 52, where the button's further deals cost little and settle its "
                         "lagging strategy; 1:1 on smaller decks; docs/SAMPLED.md)")
    sampled.add_argument("--seed", type=_non_negative_int, metavar="S",
                         help="the deal stream: a run is bitwise reproducible from it on any worker count "
                         "(default: 0)")
    sampled.add_argument("--bracket-samples", type=_bracket_samples, metavar="N",
                         help="deals per hand class in each sample set of the exploitability bracket: more is "
                         "narrower (its resolution shrinks as 1/sqrt(N)) and slower; the final bracket has N, "
                         f"progress brackets N/4 (default: as many as fit in {BRACKET_DEALS:,} deals, "
                         f"at most {MAX_PER_CLASS:,}; 14 for 5 cards from 52)")
    sampled.add_argument("--bracket-rounds", type=_bracket_rounds, metavar="K",
                         help="rounds in which the bracket's classes whose best response is close choose it again "
                         f"on four times the deals they had: each narrows its upper end and costs more (default: "
                         f"{REFINE_ROUNDS}; 0: none)")
    sampled.add_argument("--bracket-focus", type=_bracket_focus, metavar="S",
                         help="the bracket's focus round: the few classes whose upper estimate is least certain "
                         "choose their best response again on up to S times each player's first deals between them "
                         f"(default: {FOCUS_SHARE}; 0: none)")
    sampled.add_argument("--exact-exploitability", action="store_true", default=None,
                         help="at the end, also the exact exploitability of the saved strategy, every deal "
                         "enumerated (decks the exact solver reaches, e.g. draw27(ranks=8,suits=2,hand=3); it says "
                         "how long it may take before it starts), printed beside the bracket and kept in the file")
    dist = parser.add_argument_group("where it runs")
    dist.add_argument("--address", metavar="auto|HOST:PORT",
                      help="join the Ray cluster started by `ray start` (default: none; a private "
                      "embedded Ray, or no Ray at all for short passes)")
    dist.add_argument("--workers", type=_workers, default="auto", metavar="auto|N",
                      help="Ray shard actors; 0 solves in-process without Ray (default: auto: in-process "
                      "for games whose pass is shorter than a Ray round trip, else one per CPU)")
    dist.add_argument("--shards", type=_positive_int, metavar="K",
                      help="cut the deals into K shards (sampled: the hand classes into K class blocks; "
                      "default: the game's); results are bitwise the same for any worker count, not for "
                      "another shard count")
    dist.add_argument("--checkpoint", type=_path, metavar="PATH", help="save the solver state here (also on "
                      "Ctrl-C/SIGTERM and at the end); if PATH exists the run resumes from it")
    dist.add_argument("--checkpoint-every", type=_positive_int, default=100, metavar="K",
                      help="iterations between checkpoints (default: 100)")
    dist.add_argument("--resume", type=_path, metavar="PATH", help="continue the run saved in this checkpoint, "
                      "and save the state back to it (unless --checkpoint names another file, or "
                      "--no-checkpoint)")
    dist.add_argument("--no-checkpoint", action="store_true", help="with --resume: leave the checkpoint as it is")
    out = parser.add_argument_group("output")
    out.add_argument("--out", type=_path, default="strategy.msgpack", metavar="PATH",
                     help="average strategy file, msgpack (default: strategy.msgpack)")
    out.add_argument("--summary-json", type=_path, metavar="PATH", help="write a JSON summary of the run here")
    out.add_argument("--plot", type=_path, metavar="PATH", help="write a PNG: exploitability against iterations, and "
                     "the value per stack with its break-even for a list of stacks (needs matplotlib)")
    out.add_argument("--no-tables", action="store_true", help="do not print the strategy tables")
    out.add_argument("--quiet", action="store_true", help="no progress (a line redrawn on a terminal, else a log "
                     "line every few seconds)")
    return parser


DEFAULT_MINUTES = 10.0  # a sampled solve given no stopping rule
EVAL_SHARE = 0.1  # sampled progress brackets take at most this share of a run's time
PROGRESS_SHARE = 4  # a progress bracket has this many times fewer deals per class than the final one
# a run without a target makes progress brackets only of at least this many deals per class: with fewer, a
# bracket reads the best response's luckiest discards, not the strategy
MIN_PROGRESS_PER_CLASS = 16
# a value reading (the button's value per stack on fixed deals, at each progress evaluation and the end) has
# about READ_DEALS deals, and from MIN_READ_PER_CLASS to MAX_READ_PER_CLASS per hand class
READ_DEALS, MIN_READ_PER_CLASS, MAX_READ_PER_CLASS = 200_000, 8, 4096
READ_SHARE = 0.05  # and they take at most this share of the run's time
SAY_FINAL_BRACKET_TIME = 10.0  # seconds: a final bracket expected to take longer says so as it starts
SAMPLED_ONLY = ("batch", "seed", "deal_shares", "bracket_samples", "bracket_rounds", "bracket_focus",
                "exact_exploitability")  # options only a sampled solve uses
ANNOUNCE_BYTES = 100_000_000  # files at least this large are announced with their size before they are written


def _checkpoint_to_resume(args):
    """The checkpoint to continue from (if any), checked against the command line."""
    path = args.resume
    if path is None and args.checkpoint and Path(args.checkpoint).exists():
        path = args.checkpoint
    if path is None:
        return None
    checkpoint = load_checkpoint(path)
    sampled = checkpoint.mode == "sampled"
    given = {"game": args.game and load_game(args.game).spec, "algorithm": args.algorithm,
             "updates": args.updates, "shards": args.shards,
             "seed": args.seed if sampled else None, "batch": args.batch if sampled else None,
             "deal_shares": args.deal_shares if sampled else None}
    saved = {"game": checkpoint.game, "algorithm": checkpoint.rule.name, "updates": checkpoint.updates,
             "shards": checkpoint.shards, "seed": getattr(checkpoint, "seed", None),
             "batch": getattr(checkpoint, "batch", None), "deal_shares": getattr(checkpoint, "deal_shares", None)}
    for key, value in given.items():
        if value not in (None, AUTO) and value != saved[key]:
            raise BadParameter(f"checkpoint {path} is a {key}={saved[key]} run; the command line asks for "
                               f"{key}={value}")
    if args.sampling and not sampled:
        raise BadParameter(f"checkpoint {path} is an exact run; --sampling cannot continue it")
    print(f"resuming {checkpoint.game} from {path} at iteration {checkpoint.iteration}")
    if args.no_checkpoint:
        args.checkpoint = None
    elif args.checkpoint is None:
        args.checkpoint = path
        print(f"  the run's state is saved back to {path} (--no-checkpoint: leave it as it is)")
    return checkpoint


def _check_paths(args) -> None:
    """No output may be an input or another output; the checkpoint may be written back where the
    run resumed from."""
    check = args.checkpoint or None
    check_distinct({"--resume": args.resume, "--checkpoint": check},
                   {"--checkpoint": check if check != args.resume else None, "--out": args.out,
                    "--summary-json": args.summary_json, "--plot": args.plot})


def _refuse_unused(args, game, sampled: bool) -> None:
    """Options the run's mode cannot use are refused, never ignored."""
    if sampled:
        if args.refine_break_even is not None:
            raise BadParameter("--refine-break-even bisects exact single-stack solves; a sampled run cannot")
        if args.exact_exploitability:
            check_exact_reach(game)
        return
    if args.refine_break_even and (game.variant_values is None or len(game.variant_values) < 2):
        raise BadParameter("--refine-break-even needs a game solved for a list of stacks, e.g. stacks=1.5:10:0.5")
    given = [name for name in SAMPLED_ONLY if getattr(args, name) is not None]
    if given:
        raise BadParameter(f"--{given[0].replace('_', '-')} is a sampled solve's option; this run enumerates every "
                           "deal (add --sampling to sample it)")


def solve_command(args, guard: StartGuard | None = None) -> dict:
    """Solve as ``args`` say; returns the summary dict. ``guard`` is disarmed once the solver is up."""
    if args.no_checkpoint and (args.resume is None or args.checkpoint):
        raise BadParameter("--no-checkpoint goes with --resume and without --checkpoint")
    _check_paths(args)
    checkpoint = _checkpoint_to_resume(args)
    game = load_game(checkpoint.game if checkpoint else (args.game or DEFAULT_GAME))
    sampled = checkpoint.mode == "sampled" if checkpoint else use_sampling(game, args.sampling or None)
    _refuse_unused(args, game, sampled)
    for path in (args.out, args.summary_json, args.checkpoint, args.plot):
        if path:
            check_writable(path)
    if args.plot:
        from distcfr.present.plots import require_matplotlib

        require_matplotlib()
    report = (_SampledRun if sampled else _ExactRun)(args, game, checkpoint is not None)  # the modes part here
    if checkpoint:
        report.saved = (args.resume or args.checkpoint, checkpoint.iteration)
    where = {"workers": args.workers, "address": args.address, "report": None if args.quiet else print,
             "needs_bracket": sampled and args.target_exploitability is not None}
    solver, summary = None, {}
    report.say_head_line()
    try:
        if checkpoint:
            solver = resume_solver(checkpoint, **where)
        else:
            solver = open_solver(game, sampling=sampled, algorithm=args.algorithm or AUTO, updates=args.updates,
                                 shards=args.shards, batch=args.batch, seed=args.seed,
                                 deal_shares=args.deal_shares, **where,
                                 **{name: getattr(args, name) for name in _rule_params()})
        if guard is not None and guard.armed:  # from here on a signal stops the run and its files are saved
            guard.disarm()
            signal.signal(signal.SIGTERM, _stop_on_sigterm)
        summary = report.execute(solver)
        return summary
    finally:  # after a stop or an error Ray may be going away: give it seconds, not minutes
        _release(solver, stopped=summary.get("interrupted", True), said=bool(summary))
        if args.address:
            head_watch.forget()


def _release(solver, stopped: bool, said: bool) -> None:
    """Stop the workers (and the embedded Ray). After a stop or an error on Ray, give it a few
    seconds; if the signal reached Ray's processes too (they are gone), end this process now, with
    a line unless one was ``said`` already: the files are saved or were never going to be."""
    if solver is None:
        return
    if stopped and not solver.workers_alive() or not solver.close(RELEASE_SECONDS if stopped else None):
        if not said:
            print("distcfr.train: stopped; Ray's processes were stopped too (a signal to the whole process group)",
                  file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)


class _Run:
    """A run on the command line: the plan from the options, progress, the run, and what it writes
    and prints at its end (the part each mode has its own)."""

    def __init__(self, args, game, resumed: bool):
        self.args, self.game, self.resumed = args, game, resumed
        self.saved: tuple[str, int] | None = None  # (path, iteration) of the last checkpoint whole on disk

    def plan(self, solver, target: float | None = None, minutes: float | None = None, **extra) -> RunPlan:
        """The run's plan from the options: ``target`` and ``minutes`` are the mode's defaults when the
        command line gives no stopping rule."""
        args = self.args
        if args.iterations is not None or args.target_exploitability is not None or args.minutes is not None:
            target, minutes = args.target_exploitability, args.minutes
        if args.checkpoint:
            self.tidy_if_lost(partial_writes(args.checkpoint))
        return RunPlan(args.iterations, target, args.eval_every, checkpoint=args.checkpoint and Path(args.checkpoint),
                       checkpoint_every=args.checkpoint_every, seconds=minutes * 60 if minutes else None,
                       before_save=self.announce_checkpoint, after_save=self.saved_to, **extra)

    def saved_to(self, path, iteration: int) -> None:
        self.saved = (str(path), iteration)
        self.say_head_line()

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

    def tidy_if_lost(self, pattern: str) -> None:
        """Remove what matches the glob ``pattern`` if a lost head ends the run (distcfr.distributed.head_watch)."""
        if self.args.address:
            head_watch.tidy(pattern)

    def progress_text(self, solver) -> str:
        return ""

    def exploitability_text(self, expl: float) -> str:
        """The progress line's exploitability: the worst stack's, in the game's units."""
        stacks = len(self.game.variant_labels)
        return exploitability_text(expl, self.game.unit) + (f" (worst of {stacks} stacks)" if stacks > 1 else "")

    def say(self, text: str) -> None:
        """A line of the end-of-run work (bracket, files), so a long run never goes silent."""
        if not self.args.quiet:
            print(text, file=sys.stderr, flush=True)

    def announce_checkpoint(self, checkpoint) -> None:
        self.announce_file(self.args.checkpoint, checkpoint.nbytes, "checkpoint")

    def announce_file(self, path, nbytes: int, what: str) -> None:
        if nbytes >= ANNOUNCE_BYTES:
            self.say(f"  writing {what} {path} ({nbytes / 1e9:.2f} GB)")

    def execute(self, solver) -> dict:
        args = self.args
        self.where = solver.describe()
        self.first_iteration, self.start = solver.iteration, time.perf_counter()
        plan = self.plan(solver)
        self.progress = progress = Progress(args.iterations, enabled=not args.quiet, seconds=plan.seconds)

        def after_iteration(s, expl):
            shown = None if expl is None else self.exploitability_text(expl)
            progress.update(s.iteration, s.iteration - self.first_iteration, shown, self.progress_text(s))

        if self.where["workers"]:
            from distcfr.distributed.runtime import silence_ray_logs

            silence_ray_logs()
        try:
            with interrupts_unwrapped():
                result = run(solver, plan, after_iteration)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM during the plan's end work (a sampled run's final bracket)
            progress.close()
            return self.interrupted(solver)
        progress.close()
        if result.workers_lost:
            self.end_with_workers_gone(solver)
        if result.interrupted and (self.where["workers"] or solver.mode == "sampled"):
            return self.interrupted(solver)
        try:
            with interrupts_unwrapped():
                summary = self.finish(solver, result)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM during the end's work (the final bracket, the files)
            return self.interrupted(solver)
        summary["recoveries"] = result.recoveries
        summary["this_run"] = {"iterations": result.iterations_run, "wall_seconds": result.wall_seconds,
                               "resumed_from": self.args.resume if self.resumed else None,
                               **({"deals": solver.deals_done - self.first_deals} if solver.mode == "sampled" else {})}
        summary.update(self.where)
        summary["memory"] = solver.launch.memory.as_dict()
        if args.summary_json:
            write_atomic(args.summary_json, (json.dumps(summary, indent=2) + "\n").encode())
        self.show(summary)
        summary["interrupted"] = result.interrupted
        return summary

    def end_with_workers_gone(self, solver) -> None:
        """The signal reached the workers too and their rows went with them: one line, and this
        process ends now (Ray's processes are gone: its own exit would wait a minute on them)."""
        checkpoint = self.args.checkpoint
        last = f"; {checkpoint} keeps its last save" if checkpoint and Path(checkpoint).exists() else ""
        print(f"distcfr.train: stopped at iteration {solver.iteration}; the workers were stopped too (a signal to "
              f"the whole process group), and the state they held with them{last}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)

    def interrupted(self, solver) -> dict:
        """The signal may have reached the workers too: save what the coordinator holds, unevaluated."""
        with signals_held():  # a second signal waits until the strategy is written
            try:
                strategy = solver.average_strategy()
            except WorkersLost:  # they went after the run's own look at them (Ray had not told yet)
                self.end_with_workers_gone(solver)
            strategy.save(self.args.out)
        deals = f" ({solver.deals_done:,} deals)" if solver.mode == "sampled" else ""
        print(f"interrupted {self.game.spec} at iteration {solver.iteration}{deals}: average strategy written to "
              f"{self.args.out}" + (f", checkpoint {self.args.checkpoint}" if self.args.checkpoint else "")
              + ("" if solver.mode == "sampled" else f" (not evaluated: python -m distcfr.show {self.args.out})"))
        return {"interrupted": True}


class _ExactRun(_Run):
    def plan(self, solver) -> RunPlan:
        evaluate = not self.args.quiet or bool(self.args.plot)  # progress and plots show the exploitability
        return super().plan(solver, target=self.game.default_target, evaluate=evaluate)

    def progress_text(self, solver) -> str:
        workers = self.where["workers"]
        return f"  {workers} workers on {self.where['nodes']} node(s)" if workers else ""

    def finish(self, solver, result) -> dict:
        args, game = self.args, self.game
        strategy = solver.average_strategy()
        summary = exact_summary(game, solver, strategy, result.wall_seconds, result.iterations_run)
        if args.refine_break_even and not result.interrupted:
            self.say(f"  refining the break-even stacks to {args.refine_break_even:g} BB (single-stack solves)")
            summary["break_even_interpolated"] = summary["break_even"]
            summary["break_even"] = refine_crossings(game.variant_values, summary["break_even"],
                                                     _single_stack_value(game, solver), args.refine_break_even)
        strategy.meta["evaluation"] = summary["per_variant"]
        self.announce_file(args.out, strategy.probs.nbytes, "average strategy")
        strategy.save(args.out)
        if args.plot:
            from distcfr.present.plots import save_run_plot

            save_run_plot(args.plot, result.history + [(solver.iteration, summary["exploitability"])], summary)
        self.strategy, self.interrupted_run = strategy, result.interrupted
        return summary

    def show(self, summary: dict) -> None:
        print_result(summary, self.args.out, self.interrupted_run, self.args.checkpoint)
        if self.args.plot:
            print(f"  plot written to {self.args.plot}")
        if not self.args.no_tables:
            tables = render_tables(self.strategy)
            if tables:
                print("\n" + tables)


class _SampledRun(_Run):
    """A sampled run: its exploitability is a bracket. Progress brackets take a quarter of the final
    one's samples; with a target, one whose upper end meets it (or which says the target is out of
    reach) is a screen: a bracket of the final samples then decides, and is the one printed at the end."""

    def plan(self, solver) -> RunPlan:
        recovery = None
        if solver.launch.resolved and not self.args.checkpoint:  # lost workers are recovered from a point of its own
            self.recovery_folder = tempfile.TemporaryDirectory(prefix="distcfr-recovery-")
            recovery = Path(self.recovery_folder.name) / "recovery.ckpt"
            self.tidy_if_lost(glob.escape(self.recovery_folder.name))
        target_only = self.args.iterations is None and self.args.minutes is None
        fits = solver.launch.progress_brackets  # a bracket fits beside the run (and so does a reading)
        evaluate = fits and (self.target is not None or self.per_class >= MIN_PROGRESS_PER_CLASS)
        if fits and not evaluate:
            self.say(f"  progress brackets: none; at {self.per_class:,} deals per hand class (a quarter of the final "
                     f"bracket's) they could not tell this strategy from an equilibrium; the final bracket, "
                     f"{self.final_per_class:,} per class, comes at the end, and value readings say how far the "
                     f"values still move")
        plan = super().plan(solver, minutes=DEFAULT_MINUTES, evaluate=evaluate,
                            eval_share=EVAL_SHARE, evaluator=self.progress_bracket, recovery=recovery,
                            eval_forecast=None if self.target else self.bracket_forecast,
                            give_up=self.out_of_reach if target_only else None, at_end=self.end_work,
                            keep_evaluating=self.bracket_says_more, reader=self.read_values if fits else None,
                            read_share=READ_SHARE)
        self.time_limit = plan.seconds  # the default's too, where the command line gives no stopping rule
        return plan

    def bracket_forecast(self, solver) -> float:
        """How long the next progress bracket is expected to take: the last one's time, or before the first,
        its drawn deals at BRACKET_DEAL_COST training deals each (at the run's rate so far); a first that
        does not fit the brackets' share of the time yet says once when it will."""
        if self.history:
            return self.history[-1]["eval_seconds"]
        elapsed = time.perf_counter() - self.start
        per_deal = elapsed / max(solver.deals_done - self.first_deals, 1)
        expected = BRACKET_DEAL_COST * drawn_deals(self.per_class, solver.kernel.n_classes) * per_deal
        if expected > EVAL_SHARE * elapsed and not self.told_wait:
            self.told_wait = True
            when = expected / EVAL_SHARE
            after = ("none comes before the run's end" if self.time_limit and when > self.time_limit else
                     f"the first comes after about {duration(when)} of the run")
            self.progress.note(f"  progress brackets: one of {self.per_class:,} deals per hand class may take about "
                               f"{duration(expected)}; kept to {EVAL_SHARE:.0%} of the run's time, {after} (the "
                               f"final bracket, {self.final_per_class:,} per class, comes at the end)")
        return expected

    def execute(self, solver) -> dict:
        self.first_deals = solver.deals_done
        self.latest, self.history = None, []  # the latest bracket and its iteration; a record of each
        self.target, self.gave_up, self.warned = self.args.target_exploitability, False, False
        self.told_wait = False  # the run said when its first progress bracket fits its share of the time
        self.final_per_class = self.args.bracket_samples or default_per_class(solver.kernel)
        self.per_class = max(2, self.final_per_class // PROGRESS_SHARE)
        self.rounds = REFINE_ROUNDS if self.args.bracket_rounds is None else self.args.bracket_rounds
        self.focus = FOCUS_SHARE if self.args.bracket_focus is None else self.args.bracket_focus
        self.final_in_run = 0.0  # seconds of a final bracket made at the run's last iteration
        self.readings = []  # value readings, on the same deals each time
        self.read_per_class = int(np.clip(READ_DEALS // solver.kernel.n_classes, MIN_READ_PER_CLASS,
                                          MAX_READ_PER_CLASS))
        return super().execute(solver)

    def read_values(self, solver) -> None:
        """A value reading of the average strategy: the button's value per stack on the same deals
        every time (:meth:`SampledSolver.values <distcfr.solve.sampled_solver.SampledSolver.values>`),
        so that readings of the run show how far its values still move."""
        value, se = solver.values(self.read_per_class)
        self.readings.append({"seconds": time.perf_counter() - self.start, "iteration": solver.iteration,
                              "value": value.tolist(), "value_se": se.tolist()})

    def progress_bracket(self, solver) -> float:
        """A bracket of the average strategy now; returns its upper end (the worst stack's). With a
        target, a quarter-sample bracket that would stop the run is checked on the final samples; at
        the run's last iteration the final bracket itself, which its end keeps (not a screen first)."""
        began = time.perf_counter()
        if self.args.iterations is not None and solver.iteration >= self.args.iterations:
            bracket = self.record(solver, self.announced_final_bracket(solver, self.progress.note), began)
            self.final_in_run = self.history[-1]["eval_seconds"]  # the end's work, not the run's: not in its time
        else:
            bracket = self.screened_bracket(solver, began)
        if self.target and not self.warned and out_of_reach(bracket, self.target):
            self.warned = True
            self.progress.note(f"  target {target_head(self.target, self.game.unit)}: "
                               + out_of_reach_text(self.target_summary(solver, bracket), self.game.unit))
        return float(bracket.interval()[1].max())

    def screened_bracket(self, solver, began: float):
        """A progress bracket of a quarter of the samples (recorded); with a target, one that would stop
        the run is checked on the final samples, which then decide. The first says what one costs."""
        bracket = screen = solver.bracket(self.per_class, rounds=self.rounds, focus=self.focus)
        screened = time.perf_counter()
        checks = self.target and self.per_class < self.final_per_class
        if checks and (screen.interval()[1].max() <= self.target or out_of_reach(screen, self.target)):
            # what the run stops on, and prints at its end
            bracket = solver.bracket(self.final_per_class, rounds=self.rounds, focus=self.focus)
        bracket = self.record(solver, bracket, began, screened if bracket is not screen else began)
        if len(self.history) == 1:
            check = f"; one that would stop the run is checked on {self.final_per_class:,}" if checks else ""
            self.progress.note(f"  bracket: {self.per_class:,} deals per hand class "
                               f"({drawn_deals(self.per_class, solver.kernel.n_classes):,} deals, "
                               f"{screen.extra_deals:,} more refining close classes, {screen.focus_deals:,} "
                               f"choosing again the least certain) in {screened - began:.3g} s; "
                               f"one at most every {self.args.eval_every} iteration(s), kept to {EVAL_SHARE:.0%} of "
                               f"the run's time" + check)
        return bracket

    def record(self, solver, bracket, began: float, bracket_began: float | None = None):
        """Keep ``bracket`` as the latest and its figures in the history; returns it. The evaluation
        began at ``began``, the bracket itself at ``bracket_began`` (later where a screen came first)."""
        now = time.perf_counter()
        self.latest = (solver.iteration, bracket)
        self.history.append({"seconds": now - self.start, "iteration": solver.iteration,
                             "low": float(bracket.low.max()), "high": float(bracket.high.max()),
                             "upper": float(bracket.interval()[1].max()), "per_class": bracket.per_class,
                             "eval_seconds": now - began, "bracket_seconds": now - (bracket_began or began)})
        return bracket

    def bracket_says_more(self) -> bool:
        """Whether progress brackets go on (a run without a target): not once one is noise-bound
        (:func:`~distcfr.evaluate.reach.noise_bound`), which is said once; the final bracket, on four
        times the samples, still comes at the end."""
        iteration, bracket = self.latest
        if not noise_bound(bracket):
            return True
        text, worst = self.worst_stack(bracket)
        self.progress.note(f"  progress brackets stop at iteration {iteration:,}: at {bracket.per_class:,} deals per "
                           f"hand class they cannot tell this strategy from an equilibrium: {text}, all within the "
                           f"bracket's resolution {amount(float(bracket.resolution()[worst]), self.game.unit)}; "
                           f"the final bracket has {self.final_per_class:,} per class")
        return False

    def out_of_reach(self) -> bool:
        """Whether the latest bracket says the target is out of its reach (a run with no other stopping
        rule then ends: it could not end otherwise)."""
        self.gave_up = out_of_reach(self.latest[1], self.target)
        return self.gave_up

    def target_summary(self, solver, bracket) -> dict:
        """Where the run stands against its target (:func:`~distcfr.evaluate.reach.target_summary`), what
        its brackets cost (the final one's included) and whether it gave up on it."""
        wall = time.perf_counter() - self.start
        done = max(solver.iteration - self.first_iteration, 1)
        return {**target_summary(self.target, bracket, self.game.variant_labels, self.history, solver.iteration,
                                 wall / done),
                "gave_up": self.gave_up, "eval_seconds": sum(h["eval_seconds"] for h in self.history),
                "wall_seconds": wall}

    def exploitability_text(self, expl: float) -> str:
        """The latest bracket's worst stack and the iteration it is of (progress lines go on showing it
        until the next one)."""
        iteration, bracket = self.latest
        return f"{self.worst_stack(bracket)[0]} (iteration {iteration})"

    def worst_stack(self, bracket) -> tuple[str, int]:
        """(text, index) of the bracket's worst stack by its upper end: upper estimate and 95% interval,
        and which stack it is where there are several."""
        labels, (low, high) = self.game.variant_labels, bracket.interval()
        worst = int(np.argmax(high))
        where = f" at {labels[worst]}, the worst of {len(labels)} stacks" if len(labels) > 1 else ""
        return exploitability_text(float(bracket.high[worst]), self.game.unit, (low[worst], high[worst])) + where, worst

    def progress_text(self, solver) -> str:
        rate = (solver.deals_done - self.first_deals) / max(time.perf_counter() - self.start, 1e-9)
        workers = f"  {self.where['workers']} workers" if self.where["workers"] else ""
        return f"  {rate:,.0f} deals/s  {np.median(solver.visits(1)):,.0f} visits per class{workers}"

    def final_bracket(self, solver) -> tuple:
        """(bracket, seconds it took): the run's last evaluation where it is of this iteration and the final
        samples (a target met or an iteration cap), else a new bracket (recorded when the run has a target,
        for its rate)."""
        if self.latest and self.latest[0] == solver.iteration and self.latest[1].per_class == self.final_per_class:
            return self.latest[1], self.history[-1]["bracket_seconds"]  # its own time, not its screen's
        began = time.perf_counter()
        bracket = self.announced_final_bracket(solver, self.say)
        seconds = time.perf_counter() - began
        return (self.record(solver, bracket, began) if self.target else bracket), seconds

    def announced_final_bracket(self, solver, say):
        """The final bracket, of the final samples, announced by ``say`` as it starts (with how long it
        may take). The run's iterations are over: the current strategy's memory goes to it."""
        solver.release_strategy()
        per_class = self.final_per_class
        say(f"  final exploitability bracket: {per_class:,} deals per hand class, "
            f"{drawn_deals(per_class, solver.kernel.n_classes):,} deals, " + refine_text(per_class, self.rounds)
            + self.final_bracket_estimate(solver.iteration))
        return solver.bracket(per_class, rounds=self.rounds, focus=self.focus)

    def final_bracket_estimate(self, iteration: int) -> str:
        """How long the final bracket at ``iteration`` may take: the latest progress bracket's time scaled
        by the samples (its deals, refinement included, grow with them); none for a short one, or without
        a progress bracket in the run's second half (early ones refine most classes: 3x too long)."""
        progress = [h for h in self.history if h["per_class"] == self.per_class]
        if not progress or self.per_class == self.final_per_class or 2 * progress[-1]["iteration"] < iteration:
            return ""
        took = progress[-1]["bracket_seconds"]
        expected = took * self.final_per_class / self.per_class
        if expected < SAY_FINAL_BRACKET_TIME:
            return ""
        return (f"; about {duration(expected)} (the last progress bracket, {self.per_class:,} per class, "
                f"took {took:.3g} s)")

    def end_work(self, solver) -> None:
        """The run's end work on its workers (the plan's ``at_end``, where a lost worker is recovered
        from): the last value reading, the final bracket and the average strategy."""
        self.progress.close()
        read = not self.readings or self.readings[-1]["iteration"] != solver.iteration
        if read and solver.launch.progress_brackets:  # a reading fits beside the run where a bracket does
            self.read_values(solver)  # the run's last reading, before the final bracket's time
        self.final = (*self.final_bracket(solver), solver.average_strategy())

    def finish(self, solver, result) -> dict:
        args, game = self.args, self.game
        bracket, seconds, strategy = self.final
        solver.close()
        result.wall_seconds -= self.final_in_run  # the run's time is its iterations' (progress brackets in)
        summary = sampled_summary(game, solver, bracket, result.wall_seconds, result.iterations_run,
                                  solver.deals_done - self.first_deals)
        summary["bracket_history"] = self.history
        summary["settling"] = settling(self.readings, game.variant_values, self.read_per_class,
                                       self.read_per_class * solver.kernel.n_classes)
        summary["bracket"] = bracket_cost(bracket, solver.kernel.n_classes, seconds, self.where["workers"])
        if self.target:
            summary["target"] = self.target_summary(solver, bracket)
        self.add_exact(summary, strategy)
        if args.checkpoint or args.resume:
            summary["checkpoint"] = {
                "path": str(args.checkpoint or args.resume),
                "resume_seconds": solver.launch.seconds_to_start if self.resumed else None,
                "write_seconds": result.checkpoint_seconds[-1] if result.checkpoint_seconds else None,
                "bytes": Path(args.checkpoint).stat().st_size if args.checkpoint else None}
        strategy.meta["evaluation"] = summary["per_variant"]
        self.announce_file(args.out, sum(t.size * 2 for t in strategy.tables.values()), "average strategy")
        strategy.save(args.out)
        self.groups = None if args.no_tables else group_report(strategy, stored=True)
        if args.plot:
            from distcfr.present.plots import save_sweep_plot

            save_sweep_plot(args.plot, summary, self.groups or group_report(strategy, stored=True))
        return summary

    def add_exact(self, summary: dict, strategy) -> None:
        """With --exact-exploitability, the exact exploitability of the strategy as its file keeps it;
        without, where that is in reach, how long it would take (``exact_hint``, seconds)."""
        if not self.args.exact_exploitability:
            seconds = exact_seconds(self.game)
            if seconds is not None:
                summary["exact_hint"] = seconds
            return
        self.say(f"  exact exploitability of the saved strategy, every deal enumerated: about "
                 f"{duration(exact_seconds(self.game))}")
        began = time.perf_counter()
        add_exact(summary, strategy.as_stored().exact_exploitability(), time.perf_counter() - began)

    def show(self, summary: dict) -> None:
        print_sampled(summary, self.args.out, self.groups)
        if self.args.plot:
            print(f"  plot written to {self.args.plot}")


def refine_text(per_class: int, rounds: int = REFINE_ROUNDS) -> str:
    """What the refinement adds to a bracket of ``per_class`` deals per class in ``rounds``, in words."""
    if not rounds:
        return "no refinement of close classes (--bracket-rounds 0)"
    first, *later = refine_steps(per_class, rounds=rounds)
    again = "".join(f", {n:,} more for each still close" for n in later)
    return f"plus {first:,} for each class whose best response is close{again}"


def _single_stack_value(game, solver):
    """value_at(stack): the game solved exactly at one stack with the run's rule (to 1e-7 BB, far
    below the value differences bisected)."""
    from distcfr.solve.solver import Solver

    def value_at(stack: float) -> float:
        with Solver(game.with_variant_values([stack]), algorithm=solver.rule) as single:
            return single.solve(target_exploitability=1e-7, iterations=100_000).value()

    return value_at


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt  # outside a run's own handling (the end's work): as Ctrl-C


def main(argv=None) -> int:
    previous = signal.getsignal(signal.SIGTERM)
    guard = StartGuard("distcfr.train")
    try:
        args = build_parser().parse_args(argv)
        with interrupts_unwrapped():
            summary = solve_command(args, guard)
    except DistcfrError as err:
        print(f"distcfr.train: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second signal while the first one's files were written
        print("distcfr.train: interrupted; the files already written are whole", file=sys.stderr)
        return 130
    finally:
        guard.disarm()
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
    return 130 if summary.get("interrupted") else 0


if __name__ == "__main__":
    raise SystemExit(main())

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

if __name__ == "__main__":  # before the imports below (a second or more): a stop meanwhile ends in one line
    from distcfr.stopping import StartGuard

    _GUARD = StartGuard("distcfr.train")

import argparse
import contextlib
import glob
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from distcfr.cli import OneLineParser, check_distinct, positive_number, whole_number
from distcfr.distributed import head_watch
from distcfr.engine.rules import AUTO, RULES
from distcfr.engine.sampled_bracket import BRACKET_CHUNK as MAX_BRACKET_SAMPLES
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS
from distcfr.errors import BadParameter, DistcfrError, WorkersLost
from distcfr.evaluate.break_even import refine_crossings
from distcfr.evaluate.class_strategy import (
    BRACKET_DEALS,
    MAX_PER_CLASS,
    check_exact_reach,
    exact_seconds,
)
from distcfr.evaluate.summary import add_exact, bracket_cost, exact_summary, sampled_summary, settling
from distcfr.evaluate.tables import render_tables
from distcfr.evaluate.units import exploitability_text
from distcfr.games.registry import REGISTRY, defaults_help, load_game
from distcfr.io.paths import check_writable, partial_writes, write_atomic
from distcfr.present.lowball_groups import group_report
from distcfr.present.run_summary import duration, out_of_reach_text, print_result, print_sampled, target_head
from distcfr.progress import Progress
from distcfr.solve import sampled_run
from distcfr.solve.checkpoint import UPDATES, load_checkpoint
from distcfr.solve.launch import RELEASE_SECONDS, open_solver, resume_solver, use_sampling
from distcfr.solve.run import RunHooks, RunPlan, run
from distcfr.solve.sampled_run import (
    EVAL_SHARE,
    BracketOptions,
    SampledRun,
    SampledRunReport,
)
from distcfr.solve.sampled_solver import BATCH_PER_CLASS, DEFAULT_BATCH, check_deal_shares
from distcfr.stopping import StartGuard, end_process, interrupts_unwrapped, signals_held, stops_interrupt

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
    solver, summary, stops = None, {}, contextlib.ExitStack()
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
        stops.enter_context(stops_interrupt())  # outside the run's own handling, SIGTERM stops as Ctrl-C does
        summary = report.execute(solver)
        return summary
    finally:  # after a stop or an error Ray may be going away: give it seconds, not minutes
        with stops:
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
        end_process(None if said else
                    "distcfr.train: stopped; Ray's processes were stopped too (a signal to the whole process group)")


class _Run(RunHooks, SampledRunReport):
    """A run on the command line: the plan from the options, progress, the run, and what it writes
    and prints at its end (the part each mode has its own). Its own hooks print what the run does."""

    saves_unevaluated_on_stop = False  # a stopped run's strategy is saved without its end work, even in-process

    def __init__(self, args, game, resumed: bool):
        self.args, self.game, self.resumed = args, game, resumed
        self.saved: tuple[str, int] | None = None  # (path, iteration) of the last checkpoint whole on disk

    def limits(self, target: float | None = None, minutes: float | None = None) -> tuple:
        """(target, seconds): the command line's stopping rules, or the mode's defaults ``target`` and
        ``minutes`` when it gives none."""
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

    def note(self, text: str) -> None:
        self.progress.note(text)

    def after_save(self, path, iteration: int) -> None:
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
        if getattr(self, "progress", None) is not None:
            self.progress.close()  # the progress line ends where the end's work begins
        if not self.args.quiet:
            print(text, file=sys.stderr, flush=True)

    def before_save(self, checkpoint) -> None:
        self.announce_file(self.args.checkpoint, checkpoint.nbytes, "checkpoint")

    def announce_file(self, path, nbytes: int, what: str) -> None:
        if nbytes >= ANNOUNCE_BYTES:
            self.say(f"  writing {what} {path} ({nbytes / 1e9:.2f} GB)")

    def execute(self, solver) -> dict:
        args = self.args
        self.where = solver.describe()
        self.first_iteration, self.start = solver.iteration, time.perf_counter()
        self.progress = None
        plan = self.make_plan(solver)
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
        if result.recovering:
            self.end_while_recovering()
        if result.interrupted and (self.where["workers"] or self.saves_unevaluated_on_stop):
            return self.interrupted(solver)
        try:
            with interrupts_unwrapped():
                summary = self.finish(solver, result)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM during the end's work (the final bracket, the files)
            return self.interrupted(solver)
        summary["recoveries"] = result.recoveries + getattr(solver, "recoveries", [])  # an exact run's are its own
        summary["this_run"] = {"iterations": result.iterations_run, "wall_seconds": result.wall_seconds,
                               "resumed_from": self.args.resume if self.resumed else None, **self.this_run(solver)}
        summary.update(self.where)
        summary["workers_at_end"] = solver.launch.on_workers  # fewer than "workers" after lost ones
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
        print(f"interrupted {self.game.spec} at iteration {solver.iteration}{self.deals_text(solver)}: average "
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


class _ExactRun(_Run):
    def make_plan(self, solver) -> RunPlan:
        evaluate = not self.args.quiet or bool(self.args.plot)  # progress and plots show the exploitability
        return self.plan(*self.limits(target=self.game.default_target), self, evaluate=evaluate)

    def progress_text(self, solver) -> str:
        workers = solver.launch.on_workers  # fewer than at the start after lost ones
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
    """A sampled run: its policy is the library's (distcfr.solve.sampled_run.SampledRun); this prints
    what it decides and writes what it ends with."""

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

    def out_of_reach(self, summary: dict) -> None:
        self.progress.note(f"  target {target_head(summary['target'], self.game.unit)}: "
                           + out_of_reach_text(summary, self.game.unit))

    def exploitability_text(self, expl: float) -> str:
        """The latest bracket's worst stack and the iteration it is of (progress lines go on showing it
        until the next one)."""
        iteration, bracket = self.policy.latest
        return f"{self.policy.worst_stack(bracket)[0]} (iteration {iteration})"

    def progress_text(self, solver) -> str:
        rate = (solver.deals_done - self.first_deals) / max(time.perf_counter() - self.start, 1e-9)
        workers = solver.launch.on_workers  # fewer than at the start after lost ones
        workers = f"  {workers} worker{'s' if workers > 1 else ''}" if workers else ""
        return f"  {rate:,.0f} deals/s  {np.median(solver.visits(1)):,.0f} visits per class{workers}"

    def this_run(self, solver) -> dict:
        return {"deals": solver.deals_done - self.first_deals}

    def deals_text(self, solver) -> str:
        return f" ({solver.deals_done:,} deals)"

    def unevaluated_text(self) -> str:
        return ""

    def finish(self, solver, result) -> dict:
        args, game, policy = self.args, self.game, self.policy
        bracket, seconds, strategy = policy.result
        solver.close()
        result.wall_seconds -= policy.final_in_run  # the run's time is its iterations' (progress brackets in)
        summary = sampled_summary(game, solver, bracket, result.wall_seconds, result.iterations_run,
                                  solver.deals_done - self.first_deals)
        summary["bracket_history"] = policy.history
        summary["settling"] = settling(policy.readings, game.variant_values, policy.read_per_class,
                                       policy.read_per_class * solver.kernel.n_classes)
        summary["bracket"] = bracket_cost(bracket, solver.kernel.n_classes, seconds, self.where["workers"])
        if policy.target:
            summary["target"] = policy.target_summary(solver, bracket)
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


def _single_stack_value(game, solver):
    """value_at(stack): the game solved exactly at one stack with the run's rule (to 1e-7 BB, far
    below the value differences bisected)."""
    from distcfr.solve.solver import Solver

    def value_at(stack: float) -> float:
        with Solver(game.with_variant_values([stack]), algorithm=solver.rule) as single:
            return single.solve(target_exploitability=1e-7, iterations=100_000).value()

    return value_at


def main(argv=None, guard: StartGuard | None = None) -> int:
    guard = guard or StartGuard("distcfr.train")
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
    return 130 if summary.get("interrupted") else 0


if __name__ == "__main__":
    raise SystemExit(main(guard=_GUARD))

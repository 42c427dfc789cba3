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
import sys
import time

import numpy as np

from distcfr.cli import OneLineParser, check_distinct, positive_number, whole_number
from distcfr.distributed import head_watch
from distcfr.engine.rules import AUTO, RULES
from distcfr.engine.sampled_bracket import BRACKET_CHUNK as MAX_BRACKET_SAMPLES
from distcfr.engine.sampled_bracket import FOCUS_SHARE, REFINE_ROUNDS
from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.class_strategy import BRACKET_DEALS, MAX_PER_CLASS
from distcfr.evaluate.tables import render_tables
from distcfr.evaluate.units import exploitability_text
from distcfr.games.registry import REGISTRY, defaults_help
from distcfr.present.run_summary import out_of_reach_text, print_result, print_sampled, target_head
from distcfr.present.sampled import sampled_presentation
from distcfr.progress import Progress
from distcfr.solve.checkpoint import UPDATES
from distcfr.solve.run import run
from distcfr.solve.run_options import open_run_solver, rule_params, what_to_run
from distcfr.solve.run_session import ExactRunSession, SampledRunSession, release
from distcfr.solve.sampled_run import EVAL_SHARE
from distcfr.solve.sampled_solver import BATCH_PER_CLASS, DEFAULT_BATCH, check_deal_shares
from distcfr.stopping import StartGuard, interrupts_unwrapped, stops_interrupt

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
    for name, owners in rule_params().items():
        algo.add_argument(f"--{name}", type=float, metavar="X", help="; ".join(
            f"{rule} {meaning} (default {default:g})" for rule, default, meaning in owners))
    algo.add_argument("--eval-every", type=_positive_int, default=10, metavar="K",
                      help="evaluate the exploitability every K iterations: exactly, or sampled by a bracket "
                      "(default: 10)")
    algo.add_argument("--refine-break-even", type=positive_number, metavar="TOL",
                      help="for a list of stacks: refine each break-even stack by bisection (solving "
                      "single stacks) until it is known to within TOL BB")
    sampled = parser.add_argument_group(
        "sampling (draw27 and nl27 configurations too large to enumerate, e.g. 5 cards from 52, are sampled on "
        "their own)")
    sampled.add_argument("--sampling", action="store_true",
                         help="solve draw27 or nl27 by chance-sampled CFR even where it could be enumerated")
    sampled.add_argument("--batch", type=_positive_int, metavar="N",
                         help=f"sampled deals per player update (default: draw27 {BATCH_PER_CLASS} per hand class, "
                         f"nl27 one, at least {DEFAULT_BATCH:,}: 1,075,672 for draw27 with 5 cards from 52)")
    sampled.add_argument("--deal-shares", type=parse_deal_shares, metavar="A:B",
                         help="the button's half-iteration draws A deals per deal of the batch, the big blind's B "
                         f"(default: 4:1 on decks of {DEFAULT_BATCH // BATCH_PER_CLASS:,} hand classes or more, "
                         "such as draw27 with 5 cards from 52, where the button's further deals cost little and "
                         "settle its lagging strategy; 1:1 on smaller decks and for nl27; docs/SAMPLED.md)")
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
                         f"on four times the deals they had: each narrows its upper end and costs more (draw27; "
                         f"default: {REFINE_ROUNDS}; 0: none)")
    sampled.add_argument("--bracket-focus", type=_bracket_focus, metavar="S",
                         help="the bracket's focus round: the few classes whose upper estimate is least certain "
                         "choose their best response again on up to S times each player's first deals between them "
                         f"(draw27; default: {FOCUS_SHARE}; 0: none)")
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


ANNOUNCE_BYTES = 100_000_000  # files at least this large are announced with their size before they are written


def _check_paths(args) -> None:
    """No output may be an input or another output; the checkpoint may be written back where the
    run resumed from."""
    check = args.checkpoint or None
    check_distinct({"--resume": args.resume, "--checkpoint": check},
                   {"--checkpoint": check if check != args.resume else None, "--out": args.out,
                    "--summary-json": args.summary_json, "--plot": args.plot})


def solve_command(args, guard: StartGuard | None = None) -> dict:
    """Solve as ``args`` say; returns the summary dict. ``guard`` is disarmed once the solver is up."""
    if args.no_checkpoint and (args.resume is None or args.checkpoint):
        raise BadParameter("--no-checkpoint goes with --resume and without --checkpoint")
    _check_paths(args)
    checkpoint, game, sampled = what_to_run(args, print, DEFAULT_GAME)
    if args.plot:
        from distcfr.present.plots import require_matplotlib

        require_matplotlib()
    report = (_SampledRun if sampled else _ExactRun)(args, game, checkpoint is not None)  # the modes part here
    if checkpoint:
        report.saved = (args.resume or args.checkpoint, checkpoint.iteration)
    solver, summary, stops, error = None, {}, contextlib.ExitStack(), None
    report.say_head_line()
    try:
        solver = open_run_solver(args, game, sampled, checkpoint, report=None if args.quiet else print)
        if guard is not None and guard.armed:  # from here on a signal stops the run and its files are saved
            guard.disarm()
        stops.enter_context(stops_interrupt())  # outside the run's own handling, SIGTERM stops as Ctrl-C does
        summary = report.execute(solver)
        return summary
    except BaseException as err:
        error = err
        raise
    finally:  # after a stop or an error Ray may be going away: give it seconds, not minutes
        with stops:
            release(solver, stopped=summary.get("interrupted", True), said=bool(summary), error=error)
            if args.address:
                head_watch.forget()


class _Printed:
    """What a run (distcfr.solve.run_session) has to show, printed: progress, the end's lines, the result."""

    progress = None

    def execute(self, solver) -> dict:
        """Run ``solver`` to the end of its plan, with progress, and return its summary."""
        plan = self.begin(solver)
        self.progress = progress = Progress(self.args.iterations, enabled=not self.args.quiet, seconds=plan.seconds)

        def after_iteration(s, expl):
            shown = None if expl is None else self.exploitability_text(expl)
            progress.update(s.iteration, s.iteration - self.first_iteration, shown, self.progress_text(s))

        try:
            with interrupts_unwrapped():
                result = run(solver, plan, after_iteration)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM during the plan's end work (a sampled run's final bracket)
            progress.close()
            return self.interrupted(solver)
        progress.close()
        return self.conclude(solver, result, interrupts_unwrapped)

    def note(self, text: str) -> None:
        self.progress.note(text)

    def say(self, text: str) -> None:
        """A line of the end-of-run work (bracket, files), so a long run never goes silent."""
        if self.progress is not None:
            self.progress.close()  # the progress line ends where the end's work begins
        if not self.args.quiet:
            print(text, file=sys.stderr, flush=True)

    def tell(self, text: str) -> None:
        print(text)

    def announce_file(self, path, nbytes: int, what: str) -> None:
        if nbytes >= ANNOUNCE_BYTES:
            self.say(f"  writing {what} {path} ({nbytes / 1e9:.2f} GB)")

    def progress_text(self, solver) -> str:
        return ""

    def exploitability_text(self, expl: float) -> str:
        """The progress line's exploitability: the worst stack's, in the game's units."""
        stacks = len(self.game.variant_labels)
        return exploitability_text(expl, self.game.unit) + (f" (worst of {stacks} stacks)" if stacks > 1 else "")


class _ExactRun(_Printed, ExactRunSession):
    @property
    def evaluates(self) -> bool:  # progress and plots show the exploitability
        return not self.args.quiet or bool(self.args.plot)

    def progress_text(self, solver) -> str:
        workers = solver.launch.on_workers  # fewer than at the start after lost ones
        return f"  {workers} workers on {self.where['nodes']} node(s)" if workers else ""

    def present(self, solver, summary: dict, strategy, result) -> None:
        if self.args.plot:
            from distcfr.present.plots import save_run_plot

            save_run_plot(self.args.plot, result.history + [(solver.iteration, summary["exploitability"])], summary)

    def show(self, summary: dict) -> None:
        print_result(summary, self.args.out, self.interrupted_run, self.args.checkpoint)
        if self.args.plot:
            print(f"  plot written to {self.args.plot}")
        if not self.args.no_tables:
            tables = render_tables(self.strategy)
            if tables:
                print("\n" + tables)


class _SampledRun(_Printed, SampledRunSession):
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

    def present(self, solver, summary: dict, strategy, result) -> None:
        present = sampled_presentation(strategy.game)
        self.groups = None if self.args.no_tables else present.run_groups(strategy)
        if self.args.plot:
            from distcfr.present.plots import save_sweep_plot

            save_sweep_plot(self.args.plot, summary, present.run_panels(strategy, self.groups))

    def show(self, summary: dict) -> None:
        print_sampled(summary, self.args.out, self.groups)
        if self.args.plot:
            print(f"  plot written to {self.args.plot}")


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

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
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

from distcfr.cli import OneLineParser, positive_number, whole_number
from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.tables import render_tables
from distcfr.games import load_game
from distcfr.io.checkpoint import load_checkpoint, save_checkpoint
from distcfr.io.msgpack_io import check_writable, write_atomic
from distcfr.progress import Progress
from distcfr.solve.rules import ALGORITHMS, AUTO
from distcfr.solve.solver import UPDATES, Solver

DEFAULT_GAME = "leduc"


class _Stop(Exception):
    """Ctrl-C or SIGTERM arrived: finish the iteration, save, exit."""


_positive_int = whole_number(1, "positive")
_non_negative_int = whole_number(0, "0 (in-process) or more")


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
                        "checkpoint's); kuhn, leduc, community13, minipoker, draw27(...)")
    stop = parser.add_argument_group(
        "when to stop (either or both; default: the game's target: 1e-4 for leduc, 1e-5 BB for draw27, "
        "1e-6 for kuhn, minipoker and community13)")
    stop.add_argument("--iterations", type=_positive_int, metavar="N",
                      help="total iterations (a resumed run counts the ones already done)")
    stop.add_argument("--target-exploitability", type=positive_number, metavar="E",
                      help="stop once the average strategy is at most E chips from a Nash equilibrium")
    algo = parser.add_argument_group("algorithm")
    algo.add_argument("--algorithm", choices=(AUTO, *ALGORITHMS),
                      help="update rule (default: auto, the rule measured fastest on the game: dcfr "
                      "(discounted CFR 1.5/0/2) for leduc, pcfr+ (predictive CFR+) for the others)")
    algo.add_argument("--updates", choices=UPDATES,
                      help="alternating or simultaneous player updates (default: alternating)")
    for name, default in (("alpha", 1.5), ("beta", 0.0), ("gamma", 2.0)):
        algo.add_argument(f"--{name}", type=float, metavar="X", help=f"dcfr {name} (default {default})")
    algo.add_argument("--eval-every", type=_positive_int, default=10, metavar="K",
                      help="compute the exact exploitability every K iterations (default: 10)")
    dist = parser.add_argument_group("where it runs")
    dist.add_argument("--address", metavar="auto|HOST:PORT",
                      help="join the Ray cluster started by `ray start` (default: none; a private "
                      "embedded Ray, or no Ray at all for short passes)")
    dist.add_argument("--workers", type=_workers, default="auto", metavar="auto|N",
                      help="Ray shard actors; 0 solves in-process without Ray (default: auto: in-process "
                      "for games whose pass is shorter than a Ray round trip, else one per CPU)")
    dist.add_argument("--shards", type=_positive_int, metavar="K",
                      help="cut the deals into K shards (default: the game's); results are bitwise "
                      "the same for any worker count, not for another shard count")
    dist.add_argument("--checkpoint", metavar="PATH", help="save the solver state here (also on "
                      "Ctrl-C/SIGTERM and at the end); if PATH exists the run resumes from it")
    dist.add_argument("--checkpoint-every", type=_positive_int, default=100, metavar="K",
                      help="iterations between checkpoints (default: 100)")
    dist.add_argument("--resume", metavar="PATH", help="continue the run saved in this checkpoint")
    algo.add_argument("--refine-break-even", type=positive_number, metavar="TOL",
                      help="for a list of stacks: refine each break-even stack by bisection (solving "
                      "single stacks) until it is known to within TOL BB")
    out = parser.add_argument_group("output")
    out.add_argument("--out", default="strategy.msgpack", metavar="PATH",
                     help="average strategy file, msgpack (default: strategy.msgpack)")
    out.add_argument("--summary-json", metavar="PATH", help="write a JSON summary of the run here")
    out.add_argument("--plot", metavar="PATH", help="write a PNG: exploitability against iterations, and "
                     "the value per stack with its break-even for a list of stacks (needs matplotlib)")
    out.add_argument("--no-tables", action="store_true", help="do not print the strategy tables")
    out.add_argument("--quiet", action="store_true", help="no progress (a line redrawn on a terminal, else a log "
                     "line every 10 s)")
    return parser


def _resume_state(args):
    """The checkpoint to continue from (if any), checked against the command line."""
    path = args.resume
    if path is None and args.checkpoint and Path(args.checkpoint).exists():
        path = args.checkpoint
    if path is None:
        return None
    state = load_checkpoint(path)
    rule = state["rule"]
    given = {"game": args.game and load_game(args.game).spec, "algorithm": args.algorithm,
             "updates": args.updates, "shards": args.shards}
    saved = {"game": state["game"], "algorithm": rule.get("name"), "updates": state["updates"],
             "shards": state["shards"]}
    for key, value in given.items():
        if value not in (None, AUTO) and value != saved[key]:
            raise BadParameter(f"checkpoint {path} is a {key}={saved[key]} run; the command line asks for "
                               f"{key}={value}")
    state["path"] = path
    return state


def run(args) -> dict:
    """Solve as ``args`` say; returns the summary dict."""
    state = _resume_state(args)
    game = load_game(state["game"] if state else (args.game or DEFAULT_GAME))
    for path in (args.out, args.summary_json, args.checkpoint, args.plot):
        if path:
            check_writable(path)
    if args.plot:
        from distcfr.evaluate.plots import require_matplotlib

        require_matplotlib()
    if args.refine_break_even and (game.variant_values is None or len(game.variant_values) < 2):
        raise BadParameter("--refine-break-even needs a game solved for a list of stacks, e.g. stacks=1.5:10:0.5")
    target = args.target_exploitability
    if args.iterations is None and target is None:
        target = game.default_target
    if state:
        rule = state["rule"]
        solver_args = dict(algorithm=rule["name"], updates=state["updates"], shards=state["shards"])
        if rule["name"] == "dcfr":
            solver_args.update(alpha=rule["alpha"], beta=rule["beta"], gamma=rule["gamma"])
    else:
        solver_args = dict(algorithm=args.algorithm or AUTO, updates=args.updates or "alternating",
                           shards=args.shards, alpha=args.alpha, beta=args.beta, gamma=args.gamma)
    from distcfr.dist.launch import make_shards

    started_ray = []

    def launch(layout, n_shards):  # called by the Solver once its arguments are valid
        shards, started = make_shards(layout, n_shards, args.workers, args.address)
        started_ray.append(started)
        return shards

    solver = None
    try:
        solver = Solver(game, shard_set=launch, **solver_args)
        if state and solver.rule.predictive and state.get("prediction") is None:
            raise BadParameter(f"checkpoint {state['path']} has no prediction table for pcfr+")
        return _solve(args, game, solver, state, target)
    finally:
        if solver is not None:
            solver.shards.close()
        if any(started_ray):
            from distcfr.dist.runtime import shutdown

            shutdown()


def _solve(args, game, solver: Solver, state, target) -> dict:
    shards = solver.shards
    if state:
        solver.load_state(state)
        print(f"resuming {game.spec} from {state['path']} at iteration {solver.iteration}")
    where = shards.describe()
    extra = f"  {where['workers']} workers on {where['nodes']} node(s)" if where["workers"] else ""
    progress = Progress(args.iterations, enabled=not args.quiet)
    start_iteration, start = solver.iteration, time.perf_counter()
    stop_requested = []
    history = []  # (iteration, exploitability) of every evaluation, for --plot

    def on_signal(signum, frame):
        if stop_requested:  # a second Ctrl-C: stop now
            raise KeyboardInterrupt
        stop_requested.append(signum)

    def after_iteration(s, expl):
        if expl is not None:
            history.append((s.iteration, expl))
        progress.update(s.iteration, s.iteration - start_iteration, expl, extra)
        if args.checkpoint and s.iteration % args.checkpoint_every == 0:
            save_checkpoint(s, args.checkpoint)
        if stop_requested:
            raise _Stop

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    interrupted = False
    try:
        done = args.iterations is not None and solver.iteration >= args.iterations
        if not done:
            solver.solve(iterations=args.iterations, target_exploitability=target, eval_every=args.eval_every,
                         callback=after_iteration, evaluate=not args.quiet or bool(args.plot))
    except _Stop:
        interrupted = True
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    progress.close()
    wall = time.perf_counter() - start
    if args.checkpoint:
        save_checkpoint(solver, args.checkpoint)
    strategy = solver.average_strategy()
    summary = summarize(game, solver, strategy, wall, solver.iteration - start_iteration)
    if args.refine_break_even and not interrupted:
        summary["break_even_interpolated"] = summary["break_even"]
        summary["break_even"] = refine_break_even(game, solver, summary["break_even"], args.refine_break_even)
    summary.update(where)
    strategy.meta["evaluation"] = summary["per_variant"]
    strategy.save(args.out)
    if args.summary_json:
        write_atomic(args.summary_json, (json.dumps(summary, indent=2) + "\n").encode())
    if args.plot:
        from distcfr.evaluate.plots import save_run_plot

        save_run_plot(args.plot, history + [(solver.iteration, summary["exploitability"])], summary)
    print_result(summary, args.out, interrupted, args.checkpoint)
    if not args.no_tables:
        tables = render_tables(strategy)
        if tables:
            print("\n" + tables)
    summary["interrupted"] = interrupted
    return summary


def refine_break_even(game, solver: Solver, points: list[float], tolerance: float) -> list[float]:
    """Bisect each interpolated crossing between its two solved neighbours, solving single
    stacks exactly (exploitability 1e-7 BB, far below the value differences bisected)."""
    from distcfr.evaluate.break_even import bisect

    stacks = np.array(game.variant_values)

    def value_at(stack: float) -> float:
        single = game.with_variant_values([stack])
        rule = solver.rule
        extra = dict(alpha=rule.alpha, beta=rule.beta, gamma=rule.gamma) if rule.name == "dcfr" else {}
        return Solver(single, algorithm=rule.name, **extra).solve(
            target_exploitability=1e-7, iterations=100_000).value()

    refined = []
    for point in points:
        lo, hi = stacks[stacks <= point].max(), stacks[stacks >= point].min()
        refined.append(point if lo == hi else bisect(value_at, float(lo), float(hi), tolerance))
    return refined


def summarize(game, solver: Solver, strategy, wall: float, iterations_run: int) -> dict:
    br = strategy.best_response_per_variant  # (2, B)
    expl = strategy.exploitability_per_variant()
    values = strategy.value_per_variant
    per_variant = [{"variant": label, "value": float(values[i]), "exploitability": float(expl[i]),
                    "best_response": [float(br[0, i]), float(br[1, i])]}
                   for i, label in enumerate(game.variant_labels)]
    summary = {
        "game": game.spec,
        "algorithm": solver.rule.name,
        "rule": solver.rule.params(),
        "updates": solver.updates,
        "iterations": solver.iteration,
        "wall_seconds": wall,
        "iterations_per_second": iterations_run / wall if wall > 0 else None,
        "exploitability": float(expl.max()),
        "value": float(values[0]) if len(values) == 1 else [float(v) for v in values],
        "best_response": [float(br[0, 0]), float(br[1, 0])] if len(values) == 1 else None,
        "per_variant": per_variant,
    }
    if game.variant_values is not None and len(game.variant_values) > 1:
        from distcfr.evaluate.break_even import crossings

        summary["per_stack"] = [{"stack": s, "value": float(values[i]), "exploitability": float(expl[i])}
                                for i, s in enumerate(game.variant_values)]
        summary["break_even"] = crossings(game.variant_values, values)
    return summary


def print_result(summary: dict, out_path, interrupted: bool, checkpoint) -> None:
    head = "interrupted" if interrupted else "solved"
    where = f" on {summary['workers']} workers" if summary.get("workers") else ""
    print(f"{head} {summary['game']} with {summary['algorithm']}{where}: {summary['iterations']} iterations "
          f"in {summary['wall_seconds']:.2f} s")
    if len(summary["per_variant"]) == 1:
        print(f"  exploitability {summary['exploitability']:.3e}  value (player 1) {summary['value']:+.6f}")
    else:
        for row in summary["per_variant"]:
            print(f"  {row['variant']:>8}  value {row['value']:+.6f}  exploitability {row['exploitability']:.3e}")
    if "break_even" in summary:
        points = ", ".join(f"{x:.4g}" for x in summary["break_even"]) or "none in this range"
        print(f"  break-even stack (value crosses 0): {points}")
    print(f"  average strategy written to {out_path}" + (f"; checkpoint {checkpoint}" if checkpoint else ""))


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        summary = run(args)
    except DistcfrError as err:
        print(f"distcfr.train: error: {err}", file=sys.stderr)
        return 2
    return 130 if summary.get("interrupted") else 0


if __name__ == "__main__":
    raise SystemExit(main())

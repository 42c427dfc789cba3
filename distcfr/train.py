"""python -m distcfr.train: solve a game and write its average strategy.

Examples:
  python -m distcfr.train                                   # Leduc to exploitability 1e-4
  python -m distcfr.train --game kuhn --iterations 2000 --out kuhn.msgpack
  python -m distcfr.train --game leduc --algorithm cfr+ --target-exploitability 1e-5 \\
      --summary-json leduc.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.tables import render_tables
from distcfr.games import load_game
from distcfr.io.msgpack_io import check_writable, write_atomic
from distcfr.progress import Progress
from distcfr.solve.rules import ALGORITHMS, AUTO
from distcfr.solve.solver import UPDATES, Solver

DEFAULT_GAME = "leduc"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise BadParameter(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m distcfr.train",
        description="Solve a two-player card game with a CFR-family algorithm; print the exact "
        "exploitability and value of the average strategy and write it as a msgpack file.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default=DEFAULT_GAME, metavar="SPEC",
                        help=f"game spec, name or name(key=value,...) (default: {DEFAULT_GAME}); "
                        "e.g. kuhn, leduc, 'minipoker(ranks=13)'")
    stop = parser.add_argument_group(
        "when to stop (either or both; default: the game's default target, 1e-4 or 1e-6 for the small games)")
    stop.add_argument("--iterations", type=_positive_int, metavar="N",
                      help="total iterations (a resumed run counts the ones already done)")
    stop.add_argument("--target-exploitability", type=_positive_float, metavar="E",
                      help="stop once the average strategy is at most E chips from a Nash equilibrium")
    algo = parser.add_argument_group("algorithm")
    algo.add_argument("--algorithm", default=AUTO, choices=(AUTO, *ALGORITHMS),
                      help="update rule (default: auto, the game's fastest measured: dcfr (discounted "
                      "CFR 1.5/0/2) for leduc and draw27, pcfr+ for kuhn, minipoker, community13)")
    algo.add_argument("--updates", default="alternating", choices=UPDATES,
                      help="alternating or simultaneous player updates (default: alternating)")
    for name, default in (("alpha", 1.5), ("beta", 0.0), ("gamma", 2.0)):
        algo.add_argument(f"--{name}", type=float, metavar="X", help=f"dcfr {name} (default {default})")
    algo.add_argument("--eval-every", type=_positive_int, default=10, metavar="K",
                      help="compute the exact exploitability every K iterations (default: 10)")
    out = parser.add_argument_group("output")
    out.add_argument("--out", default="strategy.msgpack", metavar="PATH",
                     help="average strategy file, msgpack (default: strategy.msgpack)")
    out.add_argument("--summary-json", metavar="PATH", help="write a JSON summary of the run here")
    out.add_argument("--no-tables", action="store_true", help="do not print the strategy tables")
    out.add_argument("--quiet", action="store_true", help="no progress line")
    return parser


def run(args) -> dict:
    """Solve as ``args`` say; returns the summary dict."""
    game = load_game(args.game)
    check_writable(args.out)
    if args.summary_json:
        check_writable(args.summary_json)
    target = args.target_exploitability
    if args.iterations is None and target is None:
        target = game.default_target
    solver = Solver(game, algorithm=args.algorithm, updates=args.updates,
                    alpha=args.alpha, beta=args.beta, gamma=args.gamma)
    progress = Progress(args.iterations, enabled=False if args.quiet else None)
    start_iteration, start = solver.iteration, time.perf_counter()
    interrupted = False

    def report(s, expl):
        progress.update(s.iteration, s.iteration - start_iteration, expl)

    try:
        solver.solve(iterations=args.iterations, target_exploitability=target,
                     eval_every=args.eval_every, callback=report)
    except KeyboardInterrupt:
        interrupted = True
    progress.close()
    wall = time.perf_counter() - start
    strategy = solver.average_strategy()
    summary = summarize(game, solver, strategy, wall)
    strategy.meta["evaluation"] = summary["per_variant"]
    strategy.save(args.out)
    if args.summary_json:
        write_atomic(args.summary_json, (json.dumps(summary, indent=2) + "\n").encode())
    print_result(summary, args.out, interrupted)
    if not args.no_tables:
        tables = render_tables(strategy)
        if tables:
            print("\n" + tables)
    summary["interrupted"] = interrupted
    return summary


def summarize(game, solver: Solver, strategy, wall: float) -> dict:
    br = strategy.best_response_per_variant  # (2, B)
    expl = strategy.exploitability_per_variant()
    values = strategy.value_per_variant
    per_variant = [{"variant": label, "value": float(values[i]), "exploitability": float(expl[i]),
                    "best_response": [float(br[0, i]), float(br[1, i])]}
                   for i, label in enumerate(game.variant_labels)]
    return {
        "game": game.spec,
        "algorithm": solver.rule.name,
        "rule": solver.rule.params(),
        "updates": solver.updates,
        "iterations": solver.iteration,
        "wall_seconds": wall,
        "iterations_per_second": solver.iteration / wall if wall > 0 else None,
        "exploitability": float(expl.max()),
        "value": float(values[0]) if len(values) == 1 else [float(v) for v in values],
        "best_response": [float(br[0].max()), float(br[1].max())] if len(values) == 1 else None,
        "per_variant": per_variant,
    }


def print_result(summary: dict, out_path, interrupted: bool) -> None:
    head = "interrupted" if interrupted else "solved"
    print(f"{head} {summary['game']} with {summary['algorithm']}: {summary['iterations']} iterations "
          f"in {summary['wall_seconds']:.2f} s")
    if len(summary["per_variant"]) == 1:
        print(f"  exploitability {summary['exploitability']:.3e} chips/game  "
              f"value (player 1) {summary['value']:+.6f}")
    else:
        for row in summary["per_variant"]:
            print(f"  {row['variant']:>12}  value {row['value']:+.6f}  exploitability {row['exploitability']:.3e}")
    print(f"  average strategy written to {out_path}")


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

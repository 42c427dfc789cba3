"""python -m distcfr.compare: race the update rules on one game, print how far each got, and
with --plot draw exploitability against wall time and against iterations, one line per rule.

Every rule gets the same budget of solving time (--seconds) in this process. The average
strategy's exact exploitability is measured on a schedule (every iteration up to 10, then
about every 10% more iterations) and the measuring is not timed, for every rule alike: a
point's time is the sum of its iterations' times only. On kuhn and leduc, OpenSpiel's C++
CFR+ (pyspiel.CFRPlusSolver) runs as one more line when open-spiel is installed, measured
by pyspiel.exploitability on its average policy, under the same schedule and budget.

Examples:
  python -m distcfr.compare --game leduc                  # the table: one line per rule
  python -m distcfr.compare --game leduc --plot leduc.png
  python -m distcfr.compare --game kuhn --algorithms pcfr+,cfr+,cfr --seconds 2 --plot kuhn.png --json kuhn.json
  python -m distcfr.compare --game "draw27(stacks=1.5:10:0.5)" --seconds 10 --plot draw27.png
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from distcfr.cli import OneLineParser, positive_number, whole_number
from distcfr.engine.memory import check_fits, exact_estimate
from distcfr.engine.rules import RULES
from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.export import OPENSPIEL_GAMES
from distcfr.games.registry import load_game
from distcfr.io.paths import check_writable, write_atomic
from distcfr.present.plots import require_matplotlib, save_compare_plot
from distcfr.solve.solver import Solver

OPENSPIEL_LINE = "OpenSpiel C++ CFR+"


def next_stop(iteration: int) -> int:
    return iteration + 1 if iteration < 10 else iteration + max(1, iteration // 10)


def race(step, exploitability, seconds: float, max_iterations: int, floor: float = 1e-12) -> dict:
    """Run ``step()`` until ``seconds`` of stepping or ``max_iterations``; ``exploitability()``
    (not timed) at every stop of the schedule. Returns the curve."""
    curve = {"iterations": [], "seconds": [], "exploitability": []}
    solving, iteration, stop = 0.0, 0, 1
    while solving < seconds and iteration < max_iterations:
        start = time.perf_counter()
        while iteration < stop:
            step()
            iteration += 1
        solving += time.perf_counter() - start
        expl = float(exploitability())
        curve["iterations"].append(iteration)
        curve["seconds"].append(solving)
        curve["exploitability"].append(expl)
        if expl <= floor:
            break
        stop = min(next_stop(iteration), max_iterations)
    return curve


def race_rule(game, algorithm: str, seconds: float, max_iterations: int) -> dict:
    with Solver(game, algorithm=algorithm) as solver:
        curve = race(solver.step, lambda: solver.average_strategy().exploitability(), seconds, max_iterations)
        curve["algorithm"] = solver.rule.name
    return curve


def race_openspiel(spec: str, seconds: float, max_iterations: int) -> dict | None:
    """OpenSpiel's C++ CFR+ on the same game, or None where open-spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(OPENSPIEL_GAMES[spec])
    solver = pyspiel.CFRPlusSolver(game)
    curve = race(solver.evaluate_and_update_policy,
                 lambda: pyspiel.exploitability(game, solver.tabular_average_policy()), seconds, max_iterations)
    curve["algorithm"] = "cfr+ (OpenSpiel C++)"
    return curve


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m distcfr.compare``."""
    parser = OneLineParser(prog="python -m distcfr.compare", description=__doc__.split("\n\n")[0].split(": ", 1)[1],
                           epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", metavar="SPEC", default="leduc", help="game spec (default: leduc)")
    parser.add_argument("--algorithms", metavar="LIST", default=",".join(RULES),
                        help=f"comma-separated rules (default: {','.join(RULES)})")
    parser.add_argument("--seconds", type=positive_number, default=5.0, metavar="T",
                        help="solving time per rule, evaluation excluded (default: 5)")
    parser.add_argument("--max-iterations", type=whole_number(1, "positive"), default=1_000_000, metavar="N",
                        help="stop a rule after N iterations even within its time (default: 1,000,000)")
    parser.add_argument("--plot", metavar="PATH", help="also draw the curves in this PNG (needs matplotlib)")
    parser.add_argument("--json", metavar="PATH", help="write the curves as JSON")
    parser.add_argument("--no-openspiel", action="store_true", help="leave out OpenSpiel's C++ CFR+ on kuhn/leduc")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        rules = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        unknown = [a for a in rules if a not in RULES]
        if unknown or not rules:
            raise BadParameter(f"unknown algorithm {unknown[0] if unknown else '(none)'!r} (known: {', '.join(RULES)})")
        if len(set(rules)) != len(rules):
            raise BadParameter("an algorithm is listed twice")
        for path in (args.plot, args.json):
            if path:
                check_writable(path)
        if args.plot:
            require_matplotlib()
        game = load_game(args.game)
        check_fits(exact_estimate(game).this_machine, f"a race of {game.spec}")
        curves = {}
        for rule in rules:
            curves[rule] = race_rule(game, rule, args.seconds, args.max_iterations)
            _print(rule, curves[rule], game.unit)
        if game.spec in OPENSPIEL_GAMES and not args.no_openspiel:
            curve = race_openspiel(game.spec, args.seconds, args.max_iterations)
            if curve is not None:
                curves[OPENSPIEL_LINE] = curve
                _print(OPENSPIEL_LINE, curve, game.unit)
        data = {"game": game.spec, "unit": game.unit, "seconds_per_rule": args.seconds,
                "timing": "solving time only; exploitability evaluation excluded for every rule",
                "curves": curves}
        if args.plot:
            save_compare_plot(args.plot, data)
            print(f"plot written to {args.plot}")
        if args.json:
            write_atomic(args.json, (json.dumps(data, indent=1) + "\n").encode())
            print(f"curves written to {args.json}")
    except DistcfrError as err:
        print(f"distcfr.compare: error: {err}", file=sys.stderr)
        return 2
    return 0


def _print(name: str, curve: dict, unit: str) -> None:
    print(f"{name:>20}: {curve['iterations'][-1]:>7,} iterations in {curve['seconds'][-1]:6.2f} s, "
          f"exploitability {curve['exploitability'][-1]:.3e}{' BB' if unit == 'BB' else ''}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())

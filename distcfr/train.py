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
import sys
from pathlib import Path

from distcfr.cli import OneLineParser, positive_number, release_solver, whole_number
from distcfr.engine.memory import available_bytes, estimate
from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.break_even import crossings, refine_crossings
from distcfr.evaluate.class_strategy import BRACKET_DEALS, MAX_PER_CLASS
from distcfr.evaluate.tables import render_tables
from distcfr.games.registry import REGISTRY, defaults_help, load_game
from distcfr.io.paths import check_writable, write_atomic
from distcfr.progress import Progress
from distcfr.solve.checkpoint import UPDATES, load_any_checkpoint
from distcfr.solve.rules import AUTO, RULES
from distcfr.solve.run import RunPlan, run
from distcfr.solve.sampled_solver import BATCH_PER_CLASS, DEFAULT_BATCH
from distcfr.solve.solver import Solver

DEFAULT_GAME = "leduc"
_positive_int = whole_number(1, "positive")
_non_negative_int = whole_number(0, "0 (in-process) or more")
_at_least_two = whole_number(2, "at least 2")


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
                      help="stop once the average strategy is at most E chips (BB for draw27) from a Nash "
                      "equilibrium (sampled: once the bracket's upper estimate is)")
    stop.add_argument("--minutes", type=positive_number, metavar="M",
                      help="stop after M minutes (default for a sampled solve without another rule: 10)")
    algo = parser.add_argument_group("algorithm")
    algo.add_argument("--algorithm", choices=(AUTO, *RULES), metavar="{" + ",".join((AUTO, *RULES)) + "}",
                      help="update rule (default: auto, the rule measured fastest on the game, see above): "
                      + "; ".join(f"{k.name}: {k.summary}" for k in RULES.values()))
    algo.add_argument("--updates", choices=UPDATES,
                      help="alternating or simultaneous player updates (default: alternating)")
    for name, owners in _rule_params().items():
        algo.add_argument(f"--{name}", type=float, metavar="X", help="; ".join(
            f"{rule} {meaning} (default {default:g})" for rule, default, meaning in owners))
    algo.add_argument("--eval-every", type=_positive_int, default=10, metavar="K",
                      help="compute the exact exploitability every K iterations (default: 10)")
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
    sampled.add_argument("--seed", type=_non_negative_int, default=0, metavar="S",
                         help="the deal stream: a run is bitwise reproducible from it on any worker count "
                         "(default: 0)")
    sampled.add_argument("--bracket-samples", type=_at_least_two, metavar="N",
                         help="deals per hand class in each sample set of the exploitability bracket: more is "
                         f"narrower and slower (default: as many as fit in {BRACKET_DEALS:,} deals, at most "
                         f"{MAX_PER_CLASS:,}; 14 for 5 cards from 52)")
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


def _checkpoint_to_resume(args):
    """The checkpoint to continue from (if any), checked against the command line."""
    path = args.resume
    if path is None and args.checkpoint and Path(args.checkpoint).exists():
        path = args.checkpoint
    if path is None:
        return None
    checkpoint = load_any_checkpoint(path)
    given = {"game": args.game and load_game(args.game).spec, "algorithm": args.algorithm,
             "updates": args.updates, "shards": args.shards}
    saved = {"game": checkpoint.game, "algorithm": checkpoint.rule.name, "updates": checkpoint.updates,
             "shards": checkpoint.shards}
    for key, value in given.items():
        if value not in (None, AUTO) and value != saved[key]:
            raise BadParameter(f"checkpoint {path} is a {key}={saved[key]} run; the command line asks for "
                               f"{key}={value}")
    print(f"resuming {checkpoint.game} from {path} at iteration {checkpoint.iteration}")
    return checkpoint


class _Launcher:
    """The Solver's shard factory: resolves the workers, reports (and checks) the memory
    estimate, then starts the shards. Remembers whether it started Ray."""

    def __init__(self, args):
        self.args, self.started_ray, self.memory, self.workers = args, False, None, 0

    def __call__(self, layout, n_shards):
        from distcfr.dist.launch import make_shards, resolve_workers

        self.workers = workers = resolve_workers(layout, n_shards, self.args.workers, self.args.address)
        self.memory = estimate(layout, n_shards, workers)
        available = available_bytes()
        if not self.args.quiet:
            print(self.memory.describe() + f" of {available / 1e9:.1f} GB available")
        if self.memory.this_machine > available:
            raise BadParameter(f"{layout.game.spec} needs about {self.memory.this_machine / 1e9:.1f} GB here, "
                               f"{available / 1e9:.1f} GB are available: use fewer stacks, a smaller game or "
                               "a cluster (--address)")
        shards, self.started_ray = make_shards(layout, n_shards, workers, self.args.address)
        return shards


def _sampled(args, game, checkpoint) -> bool:
    """Whether this run samples its deals (the checkpoint's mode, --sampling, or a game too large
    to enumerate)."""
    if checkpoint is not None:
        return checkpoint.mode == "sampled"
    problem = game.exact_size_problem()
    if (args.sampling or problem) and not hasattr(game, "sampled"):
        raise BadParameter(f"{game.name} cannot be sampled" + (f": {problem}" if problem else ""))
    return bool(args.sampling or problem)


def solve_command(args) -> dict:
    """Solve as ``args`` say; returns the summary dict."""
    checkpoint = _checkpoint_to_resume(args)
    game = load_game(checkpoint.game if checkpoint else (args.game or DEFAULT_GAME))
    if _sampled(args, game, checkpoint):
        from distcfr.sampled_cli import solve_sampled_command

        return solve_sampled_command(args, game, checkpoint)
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
    plan = RunPlan(args.iterations, target, args.eval_every, evaluate=not args.quiet or bool(args.plot),
                   checkpoint=args.checkpoint and Path(args.checkpoint), checkpoint_every=args.checkpoint_every)
    launcher = _Launcher(args)
    solver, summary = None, {}
    try:
        if checkpoint:
            solver = Solver.from_checkpoint(checkpoint, shard_set=launcher)
        else:
            solver = Solver(game, algorithm=args.algorithm or AUTO, updates=args.updates or "alternating",
                            shards=args.shards, shard_set=launcher,
                            **{name: getattr(args, name) for name in _rule_params()})
        summary = _solve(args, game, solver, plan, launcher)
        return summary
    finally:
        release_solver(solver, launcher, summary.get("interrupted", False))


def _solve(args, game, solver: Solver, plan: RunPlan, launcher: _Launcher) -> dict:
    where = solver.describe()
    extra = f"  {where['workers']} workers on {where['nodes']} node(s)" if where["workers"] else ""
    progress = Progress(args.iterations, enabled=not args.quiet)
    first = solver.iteration

    def after_iteration(s, expl):
        progress.update(s.iteration, s.iteration - first, expl, extra)

    if where["workers"]:
        from distcfr.dist.runtime import silence_ray_logs

        silence_ray_logs()
    result = run(solver, plan, after_iteration)
    progress.close()
    strategy = solver.average_strategy()
    if result.interrupted and where["workers"]:
        # the signal may have reached the workers too: save what the coordinator holds, unevaluated
        strategy.save(args.out)
        print(f"interrupted {game.spec} at iteration {solver.iteration}: average strategy written to {args.out}"
              + (f", checkpoint {args.checkpoint}" if args.checkpoint else "")
              + f" (not evaluated: python -m distcfr.show {args.out})")
        return {"interrupted": True}
    summary = summarize(game, solver, strategy, result.wall_seconds, result.iterations_run)
    if args.refine_break_even and not result.interrupted:
        summary["break_even_interpolated"] = summary["break_even"]
        summary["break_even"] = refine_crossings(game.variant_values, summary["break_even"],
                                                 _single_stack_value(game, solver), args.refine_break_even)
    summary.update(where)
    summary["memory"] = launcher.memory.as_dict()
    strategy.meta["evaluation"] = summary["per_variant"]
    strategy.save(args.out)
    if args.summary_json:
        write_atomic(args.summary_json, (json.dumps(summary, indent=2) + "\n").encode())
    if args.plot:
        from distcfr.evaluate.plots import save_run_plot

        save_run_plot(args.plot, result.history + [(solver.iteration, summary["exploitability"])], summary)
    print_result(summary, args.out, result.interrupted, args.checkpoint)
    if not args.no_tables:
        tables = render_tables(strategy)
        if tables:
            print("\n" + tables)
    summary["interrupted"] = result.interrupted
    return summary


def _single_stack_value(game, solver: Solver):
    """value_at(stack): the game solved exactly at one stack with the run's rule (to 1e-7 BB, far
    below the value differences bisected)."""

    def value_at(stack: float) -> float:
        with Solver(game.with_variant_values([stack]), algorithm=solver.rule) as single:
            return single.solve(target_exploitability=1e-7, iterations=100_000).value()

    return value_at


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
        "rule": solver.rule.fields(),
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
        summary = solve_command(args)
    except DistcfrError as err:
        print(f"distcfr.train: error: {err}", file=sys.stderr)
        return 2
    return 130 if summary.get("interrupted") else 0


if __name__ == "__main__":
    raise SystemExit(main())

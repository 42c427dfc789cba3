"""The command line's sampled runs (``python -m distcfr.train`` on draw27 configurations too large
to enumerate, or with ``--sampling``): launch, progress in deals per second, the exploitability
bracket, the summary and the compact strategy file."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from distcfr.cli import release_solver
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.memory import available_bytes, sampled_estimate
from distcfr.errors import BadParameter
from distcfr.evaluate.break_even import crossing_interval, crossings
from distcfr.evaluate.class_strategy import default_per_class
from distcfr.evaluate.lowball_groups import group_report, render_compact, render_groups
from distcfr.io.paths import check_writable, write_atomic
from distcfr.progress import Progress
from distcfr.solve.run import RunPlan, run
from distcfr.solve.sampled_solver import SampledSolver

DEFAULT_MINUTES = 10.0
EVAL_SHARE = 0.1  # progress brackets take at most this share of a run's time
# progress brackets only where the estimate leaves this margin (at 39 stacks of 5 cards the measured peak came
# out 15% above it, and Ray's memory monitor kills workers at 95% of the node's memory)
BRACKET_MARGIN = 0.8
PROGRESS_SHARE = 4  # a progress bracket has this many times fewer deals per class than the final one
AUTO_RAY_BATCH = 20_000  # deals per half-iteration from which --workers auto uses Ray (~100,000 deals/s a core)


class _SampledLauncher:
    """The SampledSolver's shard factory: workers, memory report and check, then the shards."""

    def __init__(self, args):
        self.args, self.started_ray, self.memory, self.workers = args, False, None, 0
        self.resume_seconds: float | None = None  # how long streaming the checkpoint in took
        self.progress_brackets = True

    def __call__(self, spec, n_shards, seed, batch):
        from distcfr.dist.launch import make_sampled_shards
        from distcfr.games.registry import load_game

        workers = self.args.workers
        if workers == "auto":  # a batch under ~0.2 s of one core's work is not worth Ray's round trips
            import os

            small = batch < AUTO_RAY_BATCH and self.args.address is None
            workers = 0 if small else min(os.cpu_count() or 1, n_shards) if self.args.address is None else n_shards
        self.workers = workers = min(int(workers), n_shards)
        self.memory = sampled_estimate(sampled_kernel(load_game(spec)), batch, n_shards, workers)
        available = available_bytes()
        if not self.args.quiet:
            print(self.memory.describe() + f" of {available / 1e9:.1f} GB available")
        if self.memory.this_machine > available:
            raise BadParameter(f"{spec} needs about {self.memory.this_machine / 1e9:.1f} GB here, "
                               f"{available / 1e9:.1f} GB are available: use fewer stacks or a cluster (--address)")
        self.progress_brackets = self.memory.with_bracket <= BRACKET_MARGIN * available
        if not self.progress_brackets and self.args.target_exploitability is not None:
            raise BadParameter(f"--target-exploitability needs a bracket beside the workers: about "
                               f"{self.memory.with_bracket / 1e9:.1f} GB, {available / 1e9:.1f} GB are available; "
                               f"use --minutes or --iterations")
        if not self.progress_brackets and not self.args.quiet:
            print(f"  progress brackets off: one needs {self.memory.bracket / 1e9:.1f} GB more beside the run; "
                  f"the final bracket runs once the current strategy is let go")
        shards, self.started_ray = make_sampled_shards(spec, n_shards, workers, self.args.address, seed, batch)
        return shards


def solve_sampled_command(args, game, checkpoint) -> dict:
    """Solve ``game`` by chance-sampled CFR as ``args`` say; returns the summary dict."""
    for path in (args.out, args.summary_json, args.checkpoint, args.plot):
        if path:
            check_writable(path)
    if args.plot:
        from distcfr.evaluate.plots import require_matplotlib

        require_matplotlib()
    minutes = args.minutes
    if minutes is None and args.iterations is None and args.target_exploitability is None:
        minutes = DEFAULT_MINUTES
    plan = RunPlan(args.iterations, args.target_exploitability, args.eval_every, False,
                   args.checkpoint and Path(args.checkpoint), args.checkpoint_every,
                   seconds=minutes * 60 if minutes else None)
    launcher = _SampledLauncher(args)
    solver, summary = None, {}
    try:
        if checkpoint is not None:
            began = time.perf_counter()
            solver = SampledSolver.from_checkpoint(checkpoint, shard_set=launcher)
            launcher.resume_seconds = time.perf_counter() - began
        else:
            solver = SampledSolver(game, args.algorithm or "auto", args.batch, args.seed, args.shards,
                                   shard_set=launcher)
        summary = _run(args, game, solver, plan, launcher)
        return summary
    finally:
        release_solver(solver, launcher, summary.get("interrupted", False))


def _run(args, game, solver: SampledSolver, plan: RunPlan, launcher) -> dict:
    where = solver.describe()
    workers = f"  {where['workers']} workers" if where["workers"] else ""
    progress = Progress(args.iterations, enabled=not args.quiet)
    first_deals, start = solver.deals_done, time.perf_counter()
    latest, history = [], []  # the latest progress bracket; (seconds, iteration, low, high) of each
    per_class = max(2, (args.bracket_samples or default_per_class(solver.kernel)) // PROGRESS_SHARE)

    def evaluator(s):
        latest[:] = [s.bracket(per_class)]
        history.append({"seconds": time.perf_counter() - start, "iteration": s.iteration,
                        "low": float(latest[0].low.max()), "high": float(latest[0].high.max())})
        return float(latest[0].high.max())

    def after_iteration(s, expl):
        rate = (s.deals_done - first_deals) / max(time.perf_counter() - start, 1e-9)
        shown = f"  bracket [{latest[0].low.max():.3f}, {latest[0].high.max():.3f}] BB" if latest else ""
        progress.update(s.iteration, s.iteration, None, f"  {rate:,.0f} deals/s  "
                        f"{np.median(s.visits(1)):,.0f} visits per class{shown}{workers}")

    plan = dataclasses.replace(plan, evaluate=launcher.progress_brackets, evaluator=evaluator, eval_share=EVAL_SHARE)

    if where["workers"]:
        from distcfr.dist.runtime import silence_ray_logs

        silence_ray_logs()
    result = run(solver, plan, after_iteration)
    progress.close()
    if result.interrupted:
        strategy = solver.average_strategy()
        solver.close()
        strategy.save(args.out)
        print(f"interrupted {game.spec} at iteration {solver.iteration} ({solver.deals_done:,} deals): average "
              f"strategy written to {args.out}" + (f", checkpoint {args.checkpoint}" if args.checkpoint else ""))
        return {"interrupted": True}
    solver.release_strategy()  # the run is over: its memory goes to the bracket and the average
    bracket = solver.bracket(args.bracket_samples)
    strategy = solver.average_strategy()
    solver.close()
    summary = summarize_sampled(game, solver, bracket, result.wall_seconds, result.iterations_run,
                                solver.deals_done - first_deals)
    summary.update(where)
    summary["memory"] = launcher.memory.as_dict()
    summary["bracket_history"] = history
    if args.checkpoint or args.resume:
        summary["checkpoint"] = {"path": str(args.checkpoint or args.resume), "resume_seconds": launcher.resume_seconds,
                                 "write_seconds": result.checkpoint_seconds[-1] if result.checkpoint_seconds else None,
                                 "bytes": Path(args.checkpoint).stat().st_size if args.checkpoint else None}
    strategy.meta["evaluation"] = summary["per_variant"]
    strategy.save(args.out)
    groups = group_report(strategy, stored=True)
    if args.summary_json:
        write_atomic(args.summary_json, (json.dumps(summary, indent=2) + "\n").encode())
    if args.plot:
        from distcfr.evaluate.plots import save_sweep_plot

        save_sweep_plot(args.plot, summary, groups)
    print_sampled(summary, args.out, groups)
    if args.plot:
        print(f"  plot written to {args.plot}")
    summary["interrupted"] = False
    return summary


def summarize_sampled(game, solver: SampledSolver, bracket, wall: float, iterations_run: int, deals_run: int) -> dict:
    """The summary of a sampled run. ``exploitability`` is the bracket's upper estimate (the
    honest side); ``exploitability_ci`` spans both estimates widened by 1.96 standard errors."""
    low = bracket.low - 1.96 * bracket.low_se
    high = bracket.high + 1.96 * bracket.high_se
    visits = np.minimum(solver.visits(0), solver.visits(1))
    per_variant = [{"variant": label, "value": float(bracket.value[i]), "value_se": float(bracket.value_se[i]),
                    "exploitability": float(bracket.high[i]),
                    "exploitability_ci": [float(max(low[i], 0.0)), float(high[i])],
                    "exploitability_estimates": [float(bracket.low[i]), float(bracket.high[i])]}
                   for i, label in enumerate(game.variant_labels)]
    return {
        "game": game.spec, "mode": "sampled", "algorithm": solver.rule.name, "rule": solver.rule.fields(),
        "seed": solver.seed, "batch": solver.batch, "iterations": solver.iteration, "deals": solver.deals_done,
        "wall_seconds": wall, "deals_per_second": deals_run / wall if wall > 0 else None,
        "iterations_per_second": iterations_run / wall if wall > 0 else None,
        "exploitability": float(bracket.high.max()),
        "exploitability_meaning": "upper estimate of the sampled bracket, BB per hand",
        "exploitability_ci": [float(max(low.max(), 0.0)), float(high.max())],
        "value": float(bracket.value[0]) if len(bracket.value) == 1 else [float(v) for v in bracket.value],
        "value_se": float(bracket.value_se.max()),
        "visits_per_class": {"min": int(visits.min()), "median": float(np.median(visits)),
                             "meaning": "sampled deals that updated a hand class, per player",
                             "bracket_per_class": bracket.per_class},
        "per_variant": per_variant,
        **_break_even(game, bracket),
    }


def _break_even(game, bracket) -> dict:
    """For a list of stacks: where the button's sampled value crosses zero, and the span where its
    95% band does (``break_even_interval``)."""
    stacks = game.variant_values
    if stacks is None or len(stacks) < 2:
        return {}
    interval = crossing_interval(stacks, bracket.value, bracket.value_se)
    return {"break_even": crossings(stacks, bracket.value),
            "break_even_interval": list(interval) if interval else None}


def print_sampled(summary: dict, out_path, groups: dict | None = None) -> None:
    """The end of a sampled run: speed, value and bracket per stack, and with ``groups`` (a
    :func:`~distcfr.evaluate.lowball_groups.group_report` of the strategy as its file stores it)
    the hand-group table: in full for one stack, push / call only for several."""
    print(f"sampled {summary['game']} with {summary['algorithm']}: {summary['iterations']} iterations, "
          f"{summary['deals']:,} deals in {summary['wall_seconds']:.1f} s ({summary['deals_per_second']:,.0f} deals/s)")
    for row in summary["per_variant"]:
        lo, hi = row["exploitability_ci"]
        print(f"  {row['variant']:>8}  value {row['value']:+.4f} +- {row['value_se']:.4f}  "
              f"exploitability in [{lo:.4f}, {hi:.4f}] BB (estimates {row['exploitability_estimates'][0]:.4f} "
              f"to {row['exploitability_estimates'][1]:.4f})")
    if "break_even" in summary:
        points = ", ".join(f"{x:.3f}" for x in summary["break_even"]) or "none in this range"
        span = summary["break_even_interval"]
        print(f"  break-even stack: {points} BB" + (f" (95% band crosses zero in [{span[0]:.3f}, {span[1]:.3f}])"
                                                   if span else ""))
    print(f"  average strategy written to {out_path} (float16 per hand class)")
    saved = summary.get("checkpoint")
    if saved:
        parts = [f"{saved['bytes'] / 1e9:.2f} GB" if saved["bytes"] else None,
                 f"last written in {saved['write_seconds']:.1f} s" if saved["write_seconds"] else None,
                 f"read back in {saved['resume_seconds']:.1f} s" if saved["resume_seconds"] else None]
        print(f"  checkpoint {saved['path']}: " + ", ".join(p for p in parts if p))
    if groups is not None:
        print(render_groups(groups) if len(groups["stacks"]) == 1 else render_compact(groups))


def stack_indices(strategy, stack: float | None) -> list[int]:
    """The stacks ``show`` prints: all, or the one equal to ``stack`` (BadParameter naming the file's
    stacks when it has none such)."""
    stacks = strategy.kernel.stacks
    if stack is None:
        return list(range(len(stacks)))
    found = np.flatnonzero(np.isclose(stacks, stack))
    if not len(found):
        shown = ", ".join(f"{s:g}" for s in stacks[:12]) + (", ..." if len(stacks) > 12 else "")
        raise BadParameter(f"this file has no stack of {stack:g} BB (it has {shown})")
    return [int(found[0])]


def _only(report: dict, keep: list[int]) -> dict:
    return report | {"stacks": [report["stacks"][v] for v in keep]}


def class_strategy_text(strategy, path, hand: str | None = None, stack: float | None = None) -> str:
    """A sampled strategy as ``show`` prints it: per stack (or the one ``stack``) its stored
    evaluation, how often the button pushes and the big blind calls (over all dealt hands) and
    its hand-group table (:mod:`distcfr.evaluate.lowball_groups`), and with ``hand`` that hand's
    whole strategy."""
    game, meta = strategy.game, strategy.meta
    keep = stack_indices(strategy, stack)
    lines = [f"{path}: {game.spec}, sampled {meta.get('algorithm', '?')} after {meta.get('iterations', 0)} "
             f"iterations, {meta.get('deals', 0):,} deals"]
    lines.append(render_groups(_only(group_report(strategy), keep)))
    if hand:
        lines.append("\n" + hand_strategy(strategy, hand, keep))
    return "\n".join(lines)


def class_strategy_json(strategy, stack: float | None = None) -> dict:
    """A sampled strategy as plain dicts for ``show --format json``: the game, the file's meta
    (without its evaluation), the stored evaluation per stack, and the hand groups per stack
    (:func:`~distcfr.evaluate.lowball_groups.group_report`); with ``stack``, that stack's only."""
    keep = stack_indices(strategy, stack)
    meta = {key: value for key, value in strategy.meta.items() if key != "evaluation"}
    evaluation = strategy.meta.get("evaluation") or []
    return {"game": strategy.game.spec, "mode": "sampled", "meta": meta,
            "evaluation": [evaluation[v] for v in keep if v < len(evaluation)],
            "hand_groups": _only(group_report(strategy), keep)}


def hand_strategy(strategy, text: str, stacks: list[int] | None = None) -> str:
    """One hand's full strategy, per stack (those at ``stacks``, default all): push, call, the big
    blind's draw and the button's draw after each big-blind draw count, discards written as the
    cards thrown."""
    from distcfr.cards import format_cards, parse

    kernel = strategy.kernel
    cards = parse(text)
    if len(cards) != kernel.hand or len(set(cards.tolist())) != kernel.hand or \
            not np.isin(cards, kernel.classes.deck).all():
        raise BadParameter(f"--hand needs {kernel.hand} different cards of this game's deck, got {text!r}")
    (cls,), (canonical,) = kernel.classes.classify(cards[None])
    t = strategy.tables
    lines = [f"{format_cards(cards)} (class {kernel.classes.label(int(cls))})"]

    def draws(probs) -> str:
        order = np.argsort(-probs)[:3]
        parts = []
        for mask in order:
            if probs[mask] < 0.005:
                break
            thrown = [canonical[j] for j in range(kernel.hand) if mask >> j & 1]
            parts.append(f"{'pat' if not thrown else 'throw ' + format_cards(thrown)} {probs[mask]:.0%}")
        return ", ".join(parts)

    labels = strategy.game.variant_labels
    for v in range(len(labels)) if stacks is None else stacks:
        label = labels[v]
        lines.append(f"  {label}: push {t['btn_push'][cls, v, 1]:.0%}, call {t['bb_call'][cls, v, 1]:.0%}; "
                     f"big blind draws: {draws(t['bb_draw'][cls, v])}")
        for k in range(kernel.hand + 1):
            lines.append(f"      button after the big blind drew {k}: {draws(t['btn_draw'][cls, k, v])}")
    return "\n".join(lines)

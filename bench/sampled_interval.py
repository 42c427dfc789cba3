"""Does the sampled exploitability bracket's 95% interval contain the exact exploitability, and how
far above it does its upper end sit? Per configuration, seeds x bracket settings, after a fixed
short sampled solve, held to the exact evaluation of the same strategy (small decks only).

    python bench/sampled_interval.py [--seeds 10] [--iterations 300] [--settings 4000:4,8000:4,16000:4]
        [--configs "spec;spec"] [--json out.json]

Prints, per configuration and setting (deals per class, refinement factor, ``x K`` for K rounds of
it: ``8000:4x2``, and stubs a deal if a third number is given: ``8000:4:4``; a fourth is the scored
response's gate in standard errors, ``off`` for none: ``8000:4:1:off``; a fifth the focus round's share,
0 for none: ``8000:4x2:1:3:0``; the library's default otherwise): how many seeds'
intervals contain the exact exploitability, the median and largest ratio upper end / exact, the
median lower end / exact, the median lower and upper ends, and the bracket's cost (CPU seconds of
this process, deals drawn). The run's latest iterate is scored as a response too, as a run's own
bracket does (``--no-latest``: only the bracket's best response, as a strategy file's).

    python bench/sampled_interval.py --cost "draw27(ranks=13,suits=4,hand=5,stacks=10)" [--per-class 14]

times instead the refinement where no exact solver reaches: both players' bracket chunks of 1,000
classes (at the first class and halfway) against the uniform strategy, without it, with one round
and with two.

    python bench/sampled_interval.py --curse "draw27(ranks=13,suits=1,hand=3,stacks=3)" [--seeds 10]

tries the lead that did not hold: the upper estimate (no refinement) less the optimizer's curse
estimated from its own deals (per decision, the expected excess of the best of two normal actions
whose difference has the estimated gap and standard error), held to the exact exploitability."""

from __future__ import annotations

import argparse
import inspect
import json
import time

import numpy as np

CONFIGS = ("draw27(ranks=8,suits=2,hand=3,stacks=10)", "draw27(ranks=13,suits=1,hand=3,stacks=3)",
           "draw27(ranks=7,suits=4,hand=2,stacks=10)")


def measure(kernel, tables, seed: int, per_class: int, refine: int, stubs: int = 1, gate: float | None = None,
            rounds: int | None = None, latest: dict | None = None, focus: int | None = None) -> dict:
    """One bracket of ``tables``: its interval, CPU seconds and deals (``gate``, ``rounds``, ``focus``: the
    library's unless given; ``latest``: the run's latest iterate, scored as a response too where the library can)."""
    from distcfr.evaluate.sampled import exploitability_bracket

    takes = inspect.signature(exploitability_bracket).parameters
    options = {"refine": refine} if "refine" in takes else {}  # a version without refinement: its only setting
    if "stubs" in takes:
        options["stubs"] = stubs
    if gate is not None:
        options["gate"] = gate
    if rounds is not None:
        options["rounds"] = rounds
    if latest is not None and "latest" in takes:
        options["latest"] = latest
    if focus is not None:
        options["focus_share"] = focus
    started = time.process_time()
    b = exploitability_bracket(kernel, tables, seed, per_class, **options)
    cpu = time.process_time() - started
    low, high = b.interval()
    deals = 2 * 2 * kernel.n_classes * per_class + getattr(b, "extra_deals", 0) + getattr(b, "focus_deals", 0)
    latest_est = getattr(b, "latest_low", None)
    return {"low": float(low[0]), "high": float(high[0]), "low_est": float(b.low[0]), "high_est": float(b.high[0]),
            "high_se": float(b.high_se[0]), "low_se": float(b.low_se[0]), "cpu_s": cpu, "deals": int(deals),
            "latest_est": None if latest_est is None else float(latest_est[0]),
            "latest_se": None if latest_est is None else float(b.latest_low_se[0])}


def cost(spec: str, per_class: int, classes: int = 1_000) -> None:
    """CPU seconds of both players' bracket chunks of ``classes`` classes, without and with refinement."""
    from distcfr.engine.kernels import sampled_kernel
    from distcfr.engine.sampled_bracket import REFINE, bracket_chunk, drawn_deals
    from distcfr.games.registry import load_game

    kernel = sampled_kernel(load_game(spec))
    sigma = kernel.uniform()
    print(f"{spec}: {kernel.n_classes:,} classes, {per_class} deals per class, the uniform strategy")
    for first in (0, kernel.n_classes // 2):
        stop = min(first + classes, kernel.n_classes)
        for refine, rounds in ((0, 1), (REFINE, 1), (REFINE, 2)):
            started = time.process_time()
            extra = sum(bracket_chunk(kernel, sigma, 7, per_class, p, first, stop, refine,
                                      rounds=rounds).sums.refined_deals[0] for p in (0, 1))
            print(f"  classes [{first:,}, {stop:,}) refine {refine} x {rounds} rounds: "
                  f"{time.process_time() - started:.2f} CPU s, {extra:,.0f} refinement deals beside "
                  f"{drawn_deals(per_class, stop - first):,}")


def curse(spec: str, seeds: int, iterations: int, per_class: int = 1_000) -> None:
    """Per seed: the in-sample upper estimate, the curse estimated from its deals, the exact figure."""
    from scipy.stats import norm

    from distcfr.engine.kernels import sampled_kernel
    from distcfr.engine.sampled_bracket import best_response
    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game(spec)
    kernel = sampled_kernel(game)
    weights = kernel.classes.hands_per_class / kernel.classes.hands_per_class.sum()
    print(f"{spec}: {iterations} iterations, {per_class} deals per class; the first stack")
    below = 0
    for seed in range(seeds):
        strategy = SampledSolver(game, seed=seed, shards=1).solve(iterations)
        exact = float(strategy.to_exact().exploitability_per_variant()[0])
        high, bias = 0.0, 0.0
        for player in (0, 1):
            sigma = strategy.tables
            profile = {**sigma, **{b.name: sigma[b.name].copy() for b in kernel.strategy_tables if b.player == player}}
            deals = kernel.sample_deals_of_classes(10_000 + seed, 2 * player, player, 0, kernel.n_classes, per_class)
            best_response(kernel, profile, deals, player)
            gain = (kernel.deal_values(profile, deals) - kernel.deal_values(sigma, deals))[:, 0]
            high += (1 - 2 * player) * (weights * gain.reshape(-1, per_class).mean(1)).sum() / 2
            got = kernel.class_sums(profile, deals, player, np.ones(len(deals), dtype=np.int64))  # per deal
            for name in kernel.response_order[player]:
                q = got[name].q.astype(np.float64).reshape(-1, per_class, *kernel.strategy_table(name).shape)
                top = np.argsort(q.mean(1), axis=-1)[:, None, ..., -2:]
                diff = np.diff(np.take_along_axis(q, top, axis=-1), axis=-1)[..., 0]
                gap, se = diff.mean(1), np.maximum(diff.std(1, ddof=1) / np.sqrt(per_class), 1e-300)
                excess = np.where(se > 1e-300, se * (norm.pdf(gap / se) - gap / se * norm.sf(gap / se)), 0.0)
                bias += (weights * excess.reshape(len(excess), -1).sum(1)).sum() / 2  # (all stacks: one here)
        below += high - bias < exact
        print(f"  seed {seed}: exact {exact:.5f}, upper estimate {high:.5f}, curse estimate {bias:.5f}, "
              f"corrected {high - bias:+.5f}")
    print(f"corrected upper estimate below the exact exploitability: {below} of {seeds}")


def parse_setting(item: str) -> tuple:
    """(deals per class, refinement, stubs, gate, rounds, focus share) of ``N:R[xK][:S[:G[:F]]]``: stubs 1,
    the library's gate, rounds and focus share (None) unless said; a gate of ``off`` is none (-inf);
    ``R x K``: K rounds."""
    parts = item.split(":")
    gate = None if len(parts) < 4 else (-np.inf if parts[3] == "off" else float(parts[3]))
    refine, _, rounds = parts[1].partition("x")
    return (int(parts[0]), int(refine), int(parts[2]) if len(parts) > 2 else 1, gate, int(rounds) if rounds else None,
            int(parts[4]) if len(parts) > 4 else None)


def setting_of(row: dict) -> tuple:
    return row["per_class"], row["refine"], row["stubs"], row.get("gate"), row.get("rounds"), row.get("focus")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", default=";".join(CONFIGS), help="game specs separated by ';'")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=300, help="sampled iterations of each solve")
    parser.add_argument("--settings", default="4000:4,8000:4,16000:4",
                        help="brackets as deals per class:refinement (0: none)[x rounds][:stubs a deal[:gate]], "
                             "','-separated")
    parser.add_argument("--json", help="write every seed's figures here")
    parser.add_argument("--no-latest", action="store_true",
                        help="score only the bracket's best response for the lower end, not the run's latest iterate")
    parser.add_argument("--cost", help="a game spec: time the refinement there instead (see above)")
    parser.add_argument("--per-class", type=int, default=14, help="deals per class of --cost")
    parser.add_argument("--curse", help="a game spec: try the curse's correction there instead (see above)")
    args = parser.parse_args()
    if args.cost:
        return cost(args.cost, args.per_class)
    if args.curse:
        return curse(args.curse, args.seeds, args.iterations)

    from distcfr.engine.kernels import sampled_kernel
    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver

    settings = [parse_setting(item) for item in args.settings.split(",")]
    out = []
    for spec in args.configs.split(";"):
        game = load_game(spec)
        kernel = sampled_kernel(game)
        rows = []
        for seed in range(args.seeds):
            solver = SampledSolver(game, seed=seed, shards=1)
            strategy = solver.solve(args.iterations)
            latest = solver.latest_strategy() if hasattr(solver, "latest_strategy") and not args.no_latest else None
            exact = float(strategy.to_exact().exploitability_per_variant()[0])
            for per_class, refine, stubs, gate, rounds, focus in settings:
                row = measure(kernel, strategy.tables, 10_000 + seed, per_class, refine, stubs, gate, rounds, latest,
                              focus)
                rows.append({"seed": seed, "exact": exact, "per_class": per_class, "refine": refine,
                             "stubs": stubs, "gate": gate, "rounds": rounds, "focus": focus, **row})
        out.append({"config": spec, "iterations": args.iterations, "rows": rows})
        exact = np.array([r["exact"] for r in rows if setting_of(r) == settings[0]])
        print(f"\n{spec}: {args.iterations} iterations, {kernel.n_classes} classes, exact exploitability "
              f"median {np.median(exact):.5f} BB (min {exact.min():.5f}, max {exact.max():.5f})")
        print("| deals per class | refine | stubs a deal | gate | focus | contains exact | upper/exact median | max "
              "| within 2x | lower/exact median | lower median | upper median | CPU s per bracket "
              "| deals per bracket |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for setting in settings:
            per_class, refine, stubs, gate, rounds, focus = setting
            at = [r for r in rows if setting_of(r) == setting]
            ratio = np.array([r["high"] / r["exact"] for r in at])
            below = np.median([r["low"] / r["exact"] for r in at])
            inside = sum(r["low"] <= r["exact"] <= r["high"] for r in at)
            low, high, cpu, deals = (np.median([r[k] for r in at]) for k in ("low", "high", "cpu_s", "deals"))
            shown = f"{refine}" + ("" if rounds is None else f" x {rounds}")
            print(f"| {per_class:,} | {shown} | {stubs} | {'default' if gate is None else gate} | "
                  f"{'default' if focus is None else focus} | {inside} of {len(at)} | {np.median(ratio):.2f} | "
                  f"{ratio.max():.2f} | {(ratio <= 2).sum()} of {len(at)} | {below:.2f} | {low:.5f} | {high:.5f} "
                  f"| {cpu:.1f} | {deals:,.0f} |")
    if args.json:
        with open(args.json, "w") as file:
            json.dump(out, file, indent=1)


if __name__ == "__main__":
    main()

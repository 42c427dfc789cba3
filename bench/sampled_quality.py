"""Quality per CPU-second of the sampled solver: the exact exploitability of its average strategy
against the CPU time of the solve, on games the exact solver reaches.

    OPENBLAS_NUM_THREADS=1 python bench/sampled_quality.py [--budget 120] [--seeds 0,1,2]
        [--configs "draw27(ranks=8,suits=2,hand=3,stacks=10);..."] [--variants lcfr,lcfr@16]
        [--json OUT.json] [--plot OUT.png] [--include EARLIER.json ...]

Each (configuration, variant, seed) is solved in this process (``workers=0``) for ``--budget``
CPU-seconds of this process (``time.process_time``: other load on the machine does not count);
at a geometric series of CPU times (the budget, half of it, a quarter, ... down to
``--first``) the average strategy (as ``average_strategy()`` gives it: float16, what files keep)
is evaluated exactly; evaluation time is taken off the clock. A variant is a sampled rule name,
optionally with ``@N``: N deals per hand class per half-iteration (the default batch otherwise),
and ``*S``: S stubs per deal (the kernel's ``STUBS`` otherwise; ``lcfr-flat*1`` is one stub a deal),
``%0`` / ``%1``: the other hand drawn / walked in each class's cycle (the kernel's ``CYCLE`` otherwise),
``+A:B``: the button's half draws A deals and the big blind's B per deal of the batch (the solver's
``default_deal_shares`` otherwise; ``lcfr-flat+2:1`` gives the button twice the big blind's deals),
and ``^0`` / ``^1``: a deal's stubs independent / spread over the deck (the kernel's ``SPREAD`` otherwise);
for leads not in the registry, ``pR-S`` weighs regrets by t^R and strategy sums by t^S, ``capN-S``
regrets by min(t, N) and sums by min(t, N)^S (``lcfr-flat`` is ``cap1000-2``), ``RULE~A``
is RULE's regrets with sums weighted t^A, and ``!RULE`` applies a rule the sampled solver refuses
(dcfr, cfr+) to the rows each batch touches.
The table gives the median over seeds of the final exploitability per configuration and variant,
and its ratio to the first variant's; ``--include`` adds the runs of earlier ``--json`` files (a
baseline measured once) to the table and the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time

import numpy as np

CONFIGS = ("draw27(ranks=8,suits=2,hand=3,stacks=10)", "draw27(ranks=13,suits=1,hand=3,stacks=3)",
           "draw27(ranks=7,suits=4,hand=2,stacks=10)")


def parse_variant(variant: str) -> tuple[str, int | None, int | None, bool | None, bool | None,
                                        tuple[int, int] | None]:
    """(algorithm, deals per class per half-iteration or None for the default batch, stubs per deal
    or None for the kernel's, cycle and spread or None for the kernel's, the players' deal shares
    or None for the kernel's). The leads not in the registry (``pR-S``, ``capN-S``, ``rule~a``) are
    registered here for the run."""
    import dataclasses

    from distcfr.engine.rules import RULES

    head, _, shares = variant.rpartition("+")
    if re.fullmatch(r"\d+:\d+", shares):  # deal shares; "cfr+" and "pcfr+" end in a plus of their own
        variant = head
    else:
        shares = ""
    variant, _, spread = variant.partition("^")
    variant, _, cycle = variant.partition("%")
    variant, _, stubs = variant.partition("*")
    algorithm, _, per_class = variant.partition("@")
    lead = None
    if algorithm.startswith("p") and "-" in algorithm:  # pR-S: regrets weighted t^R, sums t^S
        r, _, s = algorithm[1:].partition("-")
        lead = RULES["lcfr"], (lambda t, a=float(r): float(t) ** a), (lambda t, a=float(s): float(t) ** a)
    elif algorithm.startswith("cap") and "-" in algorithm:  # capN-S: regrets weighted min(t, N), sums min(t, N)^S
        n, _, s = algorithm[3:].partition("-")
        lead = (RULES["lcfr"], (lambda t, n=float(n): min(float(t), n)),
                (lambda t, n=float(n), a=float(s): min(float(t), n) ** a))
    elif "~" in algorithm:  # rule~a: the rule's regrets, sums weighted t^a
        base, _, power = algorithm.partition("~")
        lead = RULES[base], RULES[base].sampled_weight, (lambda t, a=float(power): float(t) ** a)
    if lead is not None:
        kind, weight, sum_weight = lead
        RULES[algorithm] = dataclasses.replace(kind, name=algorithm, sampled_weight=weight,
                                               sampled_sum_weight=sum_weight)
    return (algorithm, int(per_class) if per_class else None, int(stubs) if stubs else None,
            bool(int(cycle)) if cycle else None, bool(int(spread)) if spread else None,
            tuple(int(x) for x in shares.split(":")) if shares else None)


def checkpoints(budget: float, first: float) -> list[float]:
    """CPU times to evaluate at: budget / 2^k down to ``first``, ascending."""
    times = [budget]
    while times[-1] / 2 >= first:
        times.append(times[-1] / 2)
    return sorted(times)


def run_one(spec: str, variant: str, seed: int, budget: float, first: float) -> dict:
    """Solve for ``budget`` CPU-seconds; the curve [(cpu seconds, iterations, exploitability)]."""
    from distcfr.engine.kernels import sampled_kernel
    from distcfr.engine.sampled_draw27 import CYCLE, SPREAD, STUBS
    from distcfr.games.registry import load_game

    game = load_game(spec)
    algorithm, per_class, stubs, cycle, spread, shares = parse_variant(variant)
    kernel = sampled_kernel(game)  # the one this process's solver uses (workers=0)
    batch = None if per_class is None else per_class * kernel.n_classes
    saved = kernel.stubs, kernel.cycle, kernel.spread
    kernel.stubs, kernel.cycle = stubs or STUBS, CYCLE if cycle is None else cycle
    kernel.spread = SPREAD if spread is None else spread
    try:
        return {"config": spec, "variant": variant, "seed": seed,
                "curve": _curve(game, algorithm, batch, seed, budget, first, shares)}
    finally:
        kernel.stubs, kernel.cycle, kernel.spread = saved


def _curve(game, algorithm: str, batch: int | None, seed: int, budget: float, first: float,
           deal_shares: tuple[int, int] | None = None) -> list:
    from distcfr.solve.launch import open_solver

    curve = []
    forced = algorithm.startswith("!")  # a rule the sampled solver refuses, applied to the touched rows anyway
    with open_solver(game, sampling=True, workers=0, seed=seed, algorithm="lcfr" if forced else algorithm,
                     batch=batch, deal_shares=deal_shares) as solver:
        if forced:
            from distcfr.engine.rules import make_rule

            solver.rule = make_rule(algorithm[1:])
        spent, start = 0.0, time.process_time()
        for mark in checkpoints(budget, first):
            while spent < mark:
                solver.step()
                spent = time.process_time() - start
            expl = float(solver.average_strategy().to_exact().exploitability_per_variant().max())
            curve.append((spent, solver.iteration, expl))
            start = time.process_time() - spent  # evaluation is off the clock
    return curve


def table(runs: list[dict], variants: list[str]) -> str:
    """Markdown: median final exploitability (mBB per hand) per configuration and variant, and the
    ratio of the first variant's to each."""
    configs = list(dict.fromkeys(r["config"] for r in runs))
    lines = ["| config | " + " | ".join(f"{v} (mBB)" for v in variants)
             + "".join(f" | {variants[0]} / {v}" for v in variants[1:]) + " |",
             "| --- |" + " --- |" * (2 * len(variants) - 1)]
    for spec in configs:
        med = [np.median([r["curve"][-1][2] for r in runs if r["config"] == spec and r["variant"] == v] or [np.nan])
               for v in variants]
        lines.append(f"| {spec} | " + " | ".join(f"{1000 * m:.4f}" for m in med)
                     + "".join(f" | {med[0] / m:.2f}" for m in med[1:]) + " |")
    return "\n".join(lines)


def plot(runs: list[dict], variants: list[str], path: str) -> None:
    """Log-log curves per configuration: each variant's median over seeds (a thick line) over its
    seeds' own (thin), one legend below the panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = list(dict.fromkeys(r["config"] for r in runs))
    fig, axes = plt.subplots(1, len(configs), figsize=(5 * len(configs), 4.6), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, spec in zip(axes[0], configs):
        for i, v in enumerate(variants):
            mine = [r for r in runs if r["config"] == spec and r["variant"] == v]
            colour = colours[i % len(colours)]
            for r in mine:
                cpu, _, expl = zip(*r["curve"])
                ax.loglog(cpu, 1000 * np.array(expl), "-", color=colour, alpha=0.3, linewidth=0.8)
            points = min((len(r["curve"]) for r in mine), default=0)
            if points:
                cpu = np.median([[c[0] for c in r["curve"][-points:]] for r in mine], axis=0)
                med = np.median([[c[2] for c in r["curve"][-points:]] for r in mine], axis=0)
                ax.loglog(cpu, 1000 * med, "o-", color=colour, linewidth=2, markersize=3,
                          label=v if ax is axes[0][0] else None)
        ax.set_title(spec.replace("draw27", ""), fontsize=9)
        ax.set_xlabel("CPU seconds (one core)")
        ax.set_ylabel("exact exploitability (mBB per hand)")
        ax.grid(True, which="both", alpha=0.3)
    fig.legend(loc="lower center", ncol=2, fontsize=8, title="median of the seeds (thick), each seed (thin)",
               title_fontsize=8)
    fig.tight_layout(rect=(0, 0.22, 1, 1))
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=120.0, help="CPU-seconds per run")
    parser.add_argument("--first", type=float, default=None, help="first evaluation (CPU-s; default budget/32)")
    parser.add_argument("--configs", default=";".join(CONFIGS), help="game specs separated by ';'")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--variants", default="lcfr-flat,lcfr-square",
                        help="comma-separated: rule[@deals per class] (default: lcfr-flat,lcfr-square)")
    parser.add_argument("--json", help="write every run's curve here")
    parser.add_argument("--plot", help="draw the curves here (PNG)")
    parser.add_argument("--include", nargs="*", default=[], help="earlier --json files to show beside")
    args = parser.parse_args()
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("note: set OPENBLAS_NUM_THREADS=1 to measure one core")

    variants = args.variants.split(",") if args.variants else []
    runs = [r for path in args.include for r in json.load(open(path))["runs"]]
    new = []
    shown = list(dict.fromkeys([r["variant"] for r in runs] + variants))
    first = args.first or args.budget / 32
    for spec in filter(None, args.configs.split(";")):
        for seed in (int(s) for s in args.seeds.split(",")):
            for variant in variants:
                run = run_one(spec, variant, seed, args.budget, first)
                runs.append(run)
                new.append(run)
                cpu, its, expl = run["curve"][-1]
                print(f"{spec} {variant} seed {seed}: {1000 * expl:.4f} mBB after {cpu:.1f} CPU-s, {its} iterations",
                      flush=True)
                if args.json:
                    with open(args.json, "w") as f:
                        json.dump({"budget": args.budget, "runs": new}, f, indent=1)
    print(table(runs, shown))
    if args.plot:
        plot(runs, shown, args.plot)


if __name__ == "__main__":
    main()

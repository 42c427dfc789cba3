"""Regret weights that grow faster than linear CFR's, in the real game's regime: does discounting early
regrets harder settle a few hundred sampled iterations sooner?

    OPENBLAS_NUM_THREADS=1 python bench/sampled_regret_weights.py [--configs "SPEC;SPEC"] [--seeds 0,1,2]
        [--weights 1:2,1.5:2.5,2:3] [--per-class 8] [--marks 25,50,100,200,400] [--json FILE]

The 5-card 20-stack game runs about 180 iterations an hour on 2 cores at 8 training deals per hand
class, and its values still move between minute 30 and 60. A weight a:g weighs iteration t's regrets
by t^a and its strategy sums by t^g (1:2 is lcfr-square, what lcfr-flat is for its first 1,000
iterations): a larger a forgets the early iterates' regrets sooner. Each run solves a deck the exact
solver reaches at ``--per-class`` deals per class a half-iteration (the real game's, not the small
decks' default of 10,000 deals) and reads, at each mark, the exact exploitability and the exact
button value per stack of its average strategy. The table gives the medians over seeds: the
exploitability at each mark and the largest move of a stack's value between consecutive marks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

CONFIGS = ("draw27(ranks=8,suits=2,hand=3,stacks=10)", "draw27(ranks=13,suits=1,hand=3,stacks=3)",
           "draw27(ranks=7,suits=4,hand=2,stacks=10)")


def weight_rule(weight: str) -> str:
    """Register the rule of ``weight`` ("a:g") for this process's solvers; its name."""
    from distcfr.engine.rules import RULES, Discount, RuleKind

    a, g = (float(x) for x in weight.split(":"))
    name = f"regrets-t^{a:g}-sums-t^{g:g}"
    # the registry is where a solver's shards look its rule up by name (rule_from_fields); only the
    # weighted form is used by the sampled solver, so the discount form is a placeholder
    RULES[name] = RuleKind(name, name, lambda t, p: Discount(t, 1.0, 1.0, 1.0),
                           sampled_weight=lambda t: float(t) ** a, sampled_sum_weight=lambda t: float(t) ** g)
    return name


def run_one(spec: str, weight: str, seed: int, per_class: int, marks: list[int]) -> dict:
    """[(iteration, CPU-s, exact exploitability, button value per stack)] at each mark."""
    from distcfr.engine.kernels import sampled_kernel
    from distcfr.games.registry import load_game
    from distcfr.solve.launch import open_solver

    game = load_game(spec)
    batch = per_class * sampled_kernel(game).n_classes
    curve, spent = [], 0.0
    with open_solver(game, sampling=True, workers=0, seed=seed, algorithm=weight_rule(weight), batch=batch) as solver:
        for mark in marks:
            start = time.process_time()
            while solver.iteration < mark:
                solver.step()
            spent += time.process_time() - start
            exact = solver.average_strategy().to_exact()
            curve.append((mark, spent, float(exact.exploitability_per_variant().max()),
                          [float(v) for v in exact.value_per_variant]))
    return {"config": spec, "weight": weight, "seed": seed, "per_class": per_class, "curve": curve}


def table(runs: list[dict]) -> str:
    """Markdown: per deck and weight, median exploitability (mBB) at each mark and median largest
    value move (mBB) between consecutive marks."""
    groups: dict[tuple, list] = {}
    for run in runs:
        groups.setdefault((run["config"], run["weight"]), []).append(run["curve"])
    marks = [point[0] for point in runs[0]["curve"]]
    spans = [f"{a}->{b}" for a, b in zip(marks, marks[1:])]
    lines = [f"| deck | regrets:sums exponents | seeds | exploitability at {', '.join(map(str, marks))} (mBB) "
             f"| largest value move {', '.join(spans)} (mBB) | CPU s |", "| --- | --- | --- | --- | --- | --- |"]
    for (spec, weight), curves in groups.items():
        expl = [statistics.median(c[i][2] for c in curves) * 1000 for i in range(len(marks))]
        moves = [statistics.median(max(abs(x - y) for x, y in zip(c[i][3], c[i - 1][3])) for c in curves) * 1000
                 for i in range(1, len(marks))]
        cpu = statistics.median(c[-1][1] for c in curves)
        lines.append(f"| `{spec}` | {weight} | {len(curves)} | {' / '.join(f'{x:.3f}' for x in expl)} "
                     f"| {' / '.join(f'{x:.3f}' for x in moves)} | {cpu:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default=";".join(CONFIGS), help="game specs separated by ';'")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--weights", default="1:2,1.5:2.5,2:3", help="a:g pairs: regrets by t^a, sums by t^g")
    parser.add_argument("--per-class", type=int, default=8, help="training deals per hand class a half-iteration")
    parser.add_argument("--marks", default="25,50,100,200,400", help="iterations at which to read")
    parser.add_argument("--json", help="write every run's curve here")
    parser.add_argument("--include", nargs="*", default=[], help="earlier --json files to tabulate beside")
    args = parser.parse_args()
    marks = [int(m) for m in args.marks.split(",")]
    runs = [r for path in args.include for r in json.load(open(path))["runs"]]
    new = []
    for spec in filter(None, args.configs.split(";")):
        for weight in filter(None, args.weights.split(",")):
            for seed in (int(s) for s in args.seeds.split(",")):
                run = run_one(spec, weight, seed, args.per_class, marks)
                runs.append(run)
                new.append(run)
                print(f"{spec} {weight} seed {seed}: {1000 * run['curve'][-1][2]:.4f} mBB after {marks[-1]} "
                      "iterations", flush=True)
                if args.json:
                    with open(args.json, "w") as f:
                        json.dump({"runs": new}, f, indent=1)
    print(table(runs))


if __name__ == "__main__":
    main()

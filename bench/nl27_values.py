"""The button's value per stack on the real deck: sampled nl27 runs beside push/fold (draw27) runs.

    python bench/nl27_values.py NL27.msgpack [...] --push-fold PUSHFOLD_SUMMARY.json [--plot PATH]

The nl27 arguments are sampled strategy files (their stored evaluation), the push/fold one a
``train --summary-json`` file of a sampled draw27 run of 5 cards from 52. Prints every
stack's value with its standard error and exploitability interval, per run, and with ``--plot`` draws
the values (bars: 1.96 standard errors) against the stack: what betting before and after the draw is
worth to the button over shoving or folding.
"""

from __future__ import annotations

import argparse
import json


def stacks_and_values(summary: dict) -> list[tuple[float, float, float, list | None]]:
    """(stack, value, standard error, exploitability interval) per stack of a run's summary."""
    return [(float(row["variant"].removesuffix("BB")), row["value"], row["value_se"], row.get("exploitability_ci"))
            for row in summary["per_variant"]]


def from_strategy_file(path) -> dict:
    """A sampled strategy file's stored evaluation in a summary's shape (game, iterations, deals, per_variant)."""
    from distcfr.evaluate.class_strategy import load_class_strategy

    strategy = load_class_strategy(path)
    meta = strategy.meta
    return {"game": strategy.game.spec, "iterations": meta["iterations"], "deals": meta["deals"],
            "per_variant": meta["evaluation"]}


def run_text(summary: dict) -> str:
    minutes = f", {summary['wall_seconds'] / 60:.0f} minutes" if "wall_seconds" in summary else ""
    return f"{summary['game']}: {summary['iterations']} iterations, {summary['deals']:,} deals{minutes}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nl27", nargs="+", help="sampled nl27 strategy files")
    parser.add_argument("--push-fold", required=True, help="summary JSON of a sampled draw27 (push/fold) run")
    parser.add_argument("--plot", metavar="PATH", help="write the chart here (PNG)")
    args = parser.parse_args()
    runs = [from_strategy_file(path) for path in args.nl27]
    push_fold = json.load(open(args.push_fold))
    for summary in [*runs, push_fold]:
        print(run_text(summary))
        for stack, value, se, ci in stacks_and_values(summary):
            interval = f"  exploitability in [{ci[0]:.4f}, {ci[1]:.4f}] BB" if ci else ""
            print(f"  {stack:5g} BB  value {value:+.4f} +- {se:.4f} BB{interval}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        rows = stacks_and_values(push_fold)
        ax.errorbar([r[0] for r in rows], [r[1] for r in rows], yerr=[1.96 * r[2] for r in rows], fmt="o-",
                    ms=3, capsize=2, label="push / fold (draw27)")
        for summary in runs:
            rows = stacks_and_values(summary)
            ax.errorbar([r[0] for r in rows], [r[1] for r in rows], yerr=[1.96 * r[2] for r in rows], fmt="s-",
                        ms=5, capsize=3, label=f"with betting (nl27, {summary['iterations']} iterations, "
                        f"{summary['deals'] / 1e6:.0f} million deals)")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel("stack (BB)")
        ax.set_ylabel("button's value (BB per hand)")
        ax.set_title("deuce-to-seven single draw, 5 cards from 52: the button's value per stack")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"chart written to {args.plot}")


if __name__ == "__main__":
    main()

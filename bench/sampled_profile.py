"""Where a sampled solve spends its CPU time: the share of each part of an iteration.

    OPENBLAS_NUM_THREADS=1 python bench/sampled_profile.py [--game SPEC] [--warm 300] [--iterations 200]
        [--algorithm lcfr-cubic]

Solves in this process (``workers=0``) for ``--warm`` iterations, then times ``--iterations`` more
with ``time.process_time`` around each part (parts nest: ``class_sums`` holds classify, showdown
and the mask products): drawing the deals, classifying hands, the showdown signs of every pair of
discard masks per deal, the products that give every discard mask's counterfactual value (what
regret-based pruning of discards would shrink), the table updates and regret matching.
"""

from __future__ import annotations

import argparse
import time

PARTS = (("engine.sampled_draw27", "SampledDraw27", "sample_blocks_deals", "draw deals"),
         ("engine.sampled_draw27", "SampledDraw27", "class_sums", "class_sums (the next three and the rest)"),
         ("engine.sampled_draw27", "SampledDraw27", "_columns", "  classify hands"),
         ("engine.sampled_draw27", "SampledDraw27", "_showdown", "  showdown signs (deals x masks x masks)"),
         ("engine.sampled_draw27", "SampledDraw27", "_compiled_values", "  every mask's values (compiled loops)"),
         ("engine.class_blocks", "ClassBlockGroup", "update", "regret and sum updates"),
         ("engine.class_blocks", None, "regret_matching_rows", "regret matching"))


def timed(spent: dict) -> list:
    """Wrap each part so that its CPU time adds up in ``spent``; the undo list."""
    import importlib

    undo = []
    for module, owner, name, label in PARTS:
        where = importlib.import_module(f"distcfr.{module}")
        where = getattr(where, owner) if owner else where
        inner = getattr(where, name)

        def part(*args, _inner=inner, _label=label, **kwargs):
            start = time.process_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.process_time() - start

        setattr(where, name, part)
        undo.append((where, name, inner))
    return undo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="draw27(ranks=8,suits=2,hand=3,stacks=10)")
    parser.add_argument("--warm", type=int, default=300, help="iterations before timing")
    parser.add_argument("--iterations", type=int, default=200, help="iterations timed")
    parser.add_argument("--algorithm", default="lcfr-cubic")
    args = parser.parse_args()

    from distcfr.games.registry import load_game
    from distcfr.solve.launch import open_solver

    spent: dict[str, float] = {}
    undo = timed(spent)
    try:
        with open_solver(load_game(args.game), sampling=True, workers=0, seed=0, algorithm=args.algorithm) as solver:
            for _ in range(args.warm):
                solver.step()
            spent.clear()
            start = time.process_time()
            for _ in range(args.iterations):
                solver.step()
            total = time.process_time() - start
    finally:
        for where, name, inner in undo:
            setattr(where, name, inner)
    print(f"{args.game} {args.algorithm}: {1000 * total / args.iterations:.1f} ms CPU per iteration "
          f"({args.iterations} timed after {args.warm})")
    for _, _, _, label in PARTS:
        print(f"  {label:44s} {100 * spent.get(label, 0.0) / total:5.1f}%")


if __name__ == "__main__":
    main()

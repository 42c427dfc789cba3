"""What nl27's card abstractions cost, where the exact solver reaches: each deck is solved in the
perfect-recall game and in every abstraction {draw all, rule} x {post recall, value, 8 buckets};
each abstract strategy is lifted to the perfect-recall game (``distcfr.evaluate.nl27_lift``) and its
exact exploitability there is the abstraction's cost.

    OPENBLAS_NUM_THREADS=1 python bench/nl27_abstraction.py                   # every deck, stacks 10 and 20
    OPENBLAS_NUM_THREADS=1 python bench/nl27_abstraction.py --decks 13,1,1 --iterations 300

Prints one row per (deck, abstraction, stack), in mBB per hand: the abstract game's own
exploitability twice (the best response choosing one action per key by the summed values, as
the solver prints it, then improved round by round: ``nl27_lift.abstract_exploitability``; both
are lower bounds where keys forget cards), the button's value in the abstract game and in the
perfect-recall game, and the lifted strategy's exploitability in the perfect-recall game. Both
stacks of a deck are solved at once (one stack list).
"""

from __future__ import annotations

import argparse
import json
import time

import distcfr
from distcfr.evaluate.nl27_lift import abstract_exploitability, lift_strategy

# (deck, iterations): the 2-card decks cost ~100x an iteration of the 1-card write-up's deck
DECKS = (((13, 1, 1), 600), ((13, 2, 1), 300), ((13, 4, 1), 300), ((4, 2, 2), 300), ((6, 2, 2), 100),
         ((13, 1, 2), 100))
ABSTRACTIONS = (("all", "recall"), ("all", "value"), ("all", "8"), ("rule", "recall"), ("rule", "value"),
                ("rule", "8"))


def measure(deck: tuple, stacks: str, draw: str, post: str, iterations: int) -> dict:
    r, s, h = deck
    spec = f"nl27(ranks={r},suits={s},hand={h},stacks={stacks},draw={draw},post={post})"
    game = distcfr.load_game(spec)
    start = time.perf_counter()
    strategy = distcfr.Solver(game).solve(iterations=iterations)
    seconds = time.perf_counter() - start
    _, lifted = lift_strategy(game, strategy)
    return {"spec": game.spec, "draw": draw, "post": post, "iterations": iterations, "seconds": seconds,
            "stacks": list(game.params.stacks), "value": strategy.value_per_variant.tolist(),
            "exploitability": strategy.exploitability_per_variant().tolist(),
            "exploitability_rounds": abstract_exploitability(strategy).tolist(),
            "lifted_value": lifted.value_per_variant.tolist(),
            "lifted_exploitability": lifted.exploitability_per_variant().tolist()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", nargs="*", help="decks as ranks,suits,hand (default: the five of DECKS)")
    parser.add_argument("--stacks", default="10:20:10", help="the stack list each deck is solved for")
    parser.add_argument("--iterations", type=int, help="iterations of every solve (default: per deck)")
    parser.add_argument("--json", help="also write every row to this file")
    args = parser.parse_args(argv)
    chosen = [tuple(int(x) for x in d.split(",")) for d in args.decks] if args.decks else [d for d, _ in DECKS]
    decks = [(deck, args.iterations or dict(DECKS).get(deck, 300)) for deck in chosen]
    rows = []
    print("| deck | draw | post | stack | iterations | abstract expl. mBB: per key, rounds | value mBB | "
          "full value mBB | lifted expl. mBB (the cost) | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for deck, iterations in decks:
        full = None
        for draw, post in ABSTRACTIONS:
            row = measure(deck, args.stacks, draw, post, iterations)
            full = full or row  # draw=all, post=recall comes first: the perfect-recall game itself
            rows.append(row)
            for b, stack in enumerate(row["stacks"]):
                print(f"| {','.join(map(str, deck))} | {draw} | {post} | {stack:g} | {iterations} | "
                      f"{1e3 * row['exploitability'][b]:.3f}, {1e3 * row['exploitability_rounds'][b]:.3f} | "
                      f"{1e3 * row['value'][b]:.2f} | "
                      f"{1e3 * full['value'][b]:.2f} | {1e3 * row['lifted_exploitability'][b]:.2f} | "
                      f"{row['seconds']:.0f} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

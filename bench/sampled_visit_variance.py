"""How noisy is one visit of a hand class? The variance of a class's sums over one visit's deals (its
counterfactual action values, every cell summed), at the strategy of a short solve: with the other
hand walked in the class's cycle against drawn (``--compare cycle``, the stubs independent), with
a deal's stubs spread over the deck against independent (``--compare spread``, both cycled), or with
``--stubs`` stubs a deal against the kernel's (``--compare stubs``, cycled and spread).

    OPENBLAS_NUM_THREADS=1 python bench/sampled_visit_variance.py [--game SPEC] [--warm 300]
        [--per-class 36] [--repeats 200] [--classes 12] [--compare cycle|spread|stubs] [--stubs 8]

Per player: the ratio of the summed variances (new / old) over ``--repeats`` visits of
``--classes`` classes, each visit ``--per-class`` deals (a solve's visit: the batch over the classes)
of the kernel's stubs; a cycle visit starts at a random place of its cycle. More stubs cost more an
iteration: weigh ``--compare stubs``'s ratio against the cost's (bench/sampled_quality.py's ``*S``).
"""

from __future__ import annotations

import argparse

import numpy as np


def visit_variance(kernel, sigma, player: int, classes, per_class: int, repeats: int, cycle: bool,
                   stubs: int, rng: np.random.Generator) -> float:
    """The summed variance of the classes' sums over ``repeats`` visits of ``per_class`` deals."""
    runs = []
    for r in range(repeats):
        cells = []
        for c in classes:
            before = np.array([rng.integers(0, 10**9)]) if cycle else None
            deals = kernel.sample_blocks_deals(1000 + r, [(2, 5, int(c))], player, int(c), [np.array([per_class])],
                                               stubs, before)
            got = kernel.class_sums(sigma, deals, player, np.array([per_class]), first=int(c))
            cells.append(np.concatenate([t.q.ravel() for t in got.values()]))
        runs.append(np.concatenate(cells))
    return float(np.var(runs, axis=0).sum())


def main() -> None:
    from distcfr.engine.kernels import sampled_kernel
    from distcfr.games.registry import load_game
    from distcfr.solve.launch import open_solver

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="draw27(ranks=8,suits=2,hand=3,stacks=10)")
    parser.add_argument("--warm", type=int, default=300, help="iterations of the solve whose strategy is used")
    parser.add_argument("--per-class", type=int, default=36)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--classes", type=int, default=12)
    parser.add_argument("--compare", choices=("cycle", "spread", "stubs"), default="cycle")
    parser.add_argument("--stubs", type=int, default=8, help="stubs a deal against the kernel's (--compare stubs)")
    args = parser.parse_args()
    game = load_game(args.game)
    kernel = sampled_kernel(game)
    with open_solver(game, sampling=True, workers=0, seed=0) as solver:
        for _ in range(args.warm):
            solver.step()
        sigma = solver.shards.current()
    rng = np.random.default_rng(0)
    classes = rng.choice(kernel.n_classes, size=min(args.classes, kernel.n_classes), replace=False)
    for player in (0, 1):
        got = []
        for new in (False, True):
            kernel.spread = new if args.compare == "spread" else args.compare == "stubs"
            cycle = new if args.compare == "cycle" else True
            stubs = args.stubs if new and args.compare == "stubs" else kernel.stubs
            got.append(visit_variance(kernel, sigma, player, classes, args.per_class, args.repeats, cycle, stubs, rng))
        names = {"cycle": "cycle / drawn", "spread": "spread stubs / independent stubs",
                 "stubs": f"{args.stubs} stubs / {kernel.stubs}"}[args.compare]
        print(f"{args.game} player {player}: variance of a visit, {names} = {got[1] / got[0]:.3f}")


if __name__ == "__main__":
    main()

"""draw27 over a whole list of stacks in one solve versus one stack alone.

    python bench/stacks.py [--spec-base "draw27(ranks=13,suits=1,hand=1"] [--iterations 2000]

Prints the time per iteration and for a fixed number of iterations of: one stack (3 BB),
the 18 stacks 1.5:10:0.5 in one solve, and the 18 stacks solved one after another; and the
ratios (target: the 18-stack solve costs at most 3x one stack). Iteration time excludes
exploitability evaluation; the exploitability of each result is printed beside it.
"""

from __future__ import annotations

import argparse
import time

import distcfr


def per_iteration(spec: str, iterations: int, algorithm: str) -> tuple[float, float, float]:
    """(seconds per iteration (best of 3 blocks), total seconds, largest exploitability)."""
    solver = distcfr.Solver(distcfr.load_game(spec), algorithm=algorithm)
    solver.step()  # first touch of the buffers
    block = max(1, iterations // 3)
    best, total = float("inf"), 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(block):
            solver.step()
        elapsed = time.perf_counter() - start
        best, total = min(best, elapsed / block), total + elapsed
    return best, total, solver.average_strategy().exploitability()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="draw27(ranks=13,suits=1,hand=1")
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--algorithm", default="pcfr+")
    args = parser.parse_args()
    stacks = [1.5 + 0.5 * i for i in range(18)]
    one = per_iteration(f"{args.base},stacks=3)", args.iterations, args.algorithm)
    many = per_iteration(f"{args.base},stacks=1.5:10:0.5)", args.iterations, args.algorithm)
    apart = [per_iteration(f"{args.base},stacks={s:g})", args.iterations, args.algorithm) for s in stacks]
    apart_iter = sum(a[0] for a in apart)
    print(f"{args.base}): {args.iterations} iterations of {args.algorithm}, evaluation excluded\n")
    print("| solve | ms / iteration | s for all iterations | ratio to one stack | max exploitability (BB) |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| one stack (3 BB) | {one[0] * 1e3:.3f} | {one[1]:.2f} | 1.00 | {one[2]:.2e} |")
    print(f"| 18 stacks in one solve | {many[0] * 1e3:.3f} | {many[1]:.2f} | {many[0] / one[0]:.2f} | {many[2]:.2e} |")
    print(f"| 18 stacks one by one | {apart_iter * 1e3:.3f} | {sum(a[1] for a in apart):.2f} | "
          f"{apart_iter / one[0]:.2f} | {max(a[2] for a in apart):.2e} |")
    print(f"\n18 stacks at once cost {many[0] / one[0]:.2f}x one stack (target <= 3x); "
          f"{apart_iter / many[0]:.1f}x faster than solving them one by one.")


if __name__ == "__main__":
    main()

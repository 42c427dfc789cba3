"""Deals per second per core of the sampled nl27 kernel's CFR pass (SampledNl27.class_sums and
deal_values), compiled and, with --reference, the numpy reference pass, on one process.

    python bench/nl27_sampled_speed.py [--deals 4000] [--reference] [--zeros 0.5] [--game SPEC ...]

Each game's tables are uniform (float32, as a solve plays them), or with --zeros random rows with that
share of their entries 0 (regret matching leaves many actions at exactly 0, and the pass skips a
betting the opponent never reaches); the traverser's deals are drawn
as a half-iteration draws them (``--per-class`` deals of consecutive hand classes), and its key
sums are added into int64 tables as the class blocks pass them. The first call of each pass is
not timed (it loads or compiles the loops). Times are the process's CPU seconds (one thread): a
shared machine slows it less than the wall clock, but caches shared with others still do.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from distcfr.engine.sampled_nl27 import SampledNl27
from distcfr.games.registry import load_game

GAMES = ("nl27(ranks=13,suits=4,hand=5,stacks=20,draw=rule,post=value)",
         "nl27(ranks=13,suits=4,hand=5,stacks=10:40:10,draw=rule,post=value)",
         "nl27(ranks=13,suits=4,hand=5,stacks=20,draw=rule,post=256)",
         "nl27(ranks=13,suits=4,hand=2,stacks=20,draw=rule,post=value)")


def _rate(call, args: tuple, n: int, repeat: int, **kwargs) -> float:
    """Deals per CPU second of ``call(*args, **kwargs)`` over ``n`` deals, the best of ``repeat`` runs."""
    best = np.inf
    for _ in range(repeat):
        began = time.process_time()
        call(*args, **kwargs)
        best = min(best, time.process_time() - began)
    return n / best


def tables(kernel: SampledNl27, zeros: float) -> dict[str, np.ndarray]:
    """Uniform float32 tables, or with ``zeros`` > 0 random rows with that share of entries 0."""
    if zeros <= 0:
        return kernel.uniform(np.float32)
    rng = np.random.default_rng(0)
    out = {}
    for t in kernel.strategy_tables:
        x = rng.random((kernel.table_rows(t), *t.shape), dtype=np.float32)
        x[rng.random(x.shape, dtype=np.float32) < zeros] = 0
        x[..., 0] += x.sum(-1) == 0
        out[t.name] = x / x.sum(-1, keepdims=True)
    return out


def measure(spec: str, deals: int, per_class: int, reference: bool, repeat: int, zeros: float) -> None:
    kernel = SampledNl27(load_game(spec))
    sigma = tables(kernel, zeros)
    groups = min(kernel.n_classes, max(1, deals // per_class))  # a small deck has few classes
    counts = np.full(groups, max(per_class, deals // groups))
    per_class = int(counts[0])
    print(spec, f"({'uniform' if zeros <= 0 else f'{zeros:.0%} zeros'} tables)")
    for player in (0, 1):
        drawn = kernel.sample_class_deals(7, (1, player, 0), player, 0, counts)
        post = kernel.strategy_table(("btn_post", "bb_post")[player])
        key_sums = {post.name: (np.zeros((kernel.n_keys, *post.shape), np.int64),
                                np.zeros((kernel.n_keys, *post.shape[:-1]), np.int64))}
        modes = [("compiled", True, drawn, counts)]
        if reference:
            few = max(1, len(counts) // 8)
            modes.append(("numpy reference", False, drawn[:few * per_class], counts[:few]))
        for label, compiled, d, c in modes:
            kernel.compiled = compiled
            kernel.class_sums(sigma, d[:per_class], player, c[:1], key_sums=key_sums)  # compiles / warms up
            rate = _rate(kernel.class_sums, (sigma, d, player, c), len(d), repeat, key_sums=key_sums)
            print(f"  class_sums player {player} {label:16s} {rate:10.0f} deals/s")
    for label, compiled in [("compiled", True)] + ([("numpy reference", False)] if reference else []):
        kernel.compiled = compiled
        d = drawn if compiled else drawn[:max(per_class, len(drawn) // 8)]
        kernel.deal_values(sigma, d[:per_class])
        rate = _rate(kernel.deal_values, (sigma, d), len(d), repeat)
        print(f"  deal_values          {label:16s} {rate:10.0f} deals/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", action="append", help="an nl27 spec (draw=rule, post=value or N); repeatable")
    parser.add_argument("--deals", type=int, default=4000, help="deals per timed call")
    parser.add_argument("--per-class", type=int, default=8, help="deals per hand class of the traverser")
    parser.add_argument("--repeat", type=int, default=2, help="timed calls per figure (the best is printed)")
    parser.add_argument("--reference", action="store_true", help="time the numpy reference pass too")
    parser.add_argument("--zeros", type=float, default=0.0, help="share of random table entries at 0 (0: uniform)")
    args = parser.parse_args()
    for spec in args.game or GAMES:
        measure(spec, args.deals, args.per_class, args.reference, args.repeat, args.zeros)


if __name__ == "__main__":
    main()

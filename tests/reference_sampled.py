"""Reference chance-sampled CFR driver for :mod:`distcfr.games.draw27_sampled`.

``solve_sampled`` is deliberately small: dense float64 regrets and strategy sums per block, alternating
updates, linear CFR in weighted form or vanilla CFR. It is the reference a distributed solver is checked
against, not a fast solver.
"""

from __future__ import annotations

import numpy as np

from distcfr.games.draw27_sampled import SampledDraw27

RULES = {"lcfr": lambda t: float(t), "cfr": lambda t: 1.0}  # iteration weight of regrets and strategy sums


def regret_matching(regrets: np.ndarray) -> np.ndarray:
    """Strategy proportional to positive regret over the last axis; uniform where none is positive."""
    positive = np.maximum(regrets, 0.0)
    total = positive.sum(-1, keepdims=True)
    n = regrets.shape[-1]
    return np.divide(positive, total, out=np.full_like(positive, 1 / n), where=total > 0)


def solve_sampled(ranks: int, suits: int, hand: int, stacks, iterations: int, batch: int, seed: int,
                  rule: str = "lcfr") -> dict[str, np.ndarray]:
    """Average strategy (block name -> (C, *shape) float64) after ``iterations`` of chance-sampled CFR.

    Each iteration updates the button on ``batch`` deals, then the big blind, each against the
    other's current strategy (alternating updates). A player's batch at iteration t takes places
    [(t - 1) batch, t batch) of the endless round of hand classes 0, 1, ..., C - 1, 0, ...; its deals
    are those of one shard: stream (seed, 2, 2t + player, 0), the player holding each class's
    canonical hand.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {sorted(RULES)}, not {rule!r}")
    game = SampledDraw27(ranks, suits, hand, stacks)
    weight = RULES[rule]
    regrets = {b.name: np.zeros((game.n_classes, *b.shape)) for b in game.blocks}
    sums = {b.name: np.zeros((game.n_classes, *b.shape)) for b in game.blocks}
    for t in range(1, iterations + 1):
        for player in (0, 1):
            sigma = {name: regret_matching(r) for name, r in regrets.items()}
            counts = np.bincount(np.arange((t - 1) * batch, t * batch) % game.n_classes, minlength=game.n_classes)
            deals = game.sample_class_deals(seed, (2, 2 * t + player, 0), player, 0, counts)
            for name, got in game.cfr_values(sigma, deals, players=(player,)).items():
                s = sigma[name][got.rows]
                regrets[name][got.rows] += weight(t) * (got.q - (s * got.q).sum(-1, keepdims=True))
                sums[name][got.rows] += weight(t) * got.reach[..., None] * s
    return {name: regret_matching(s) for name, s in sums.items()}  # normalised sums; uniform where unreached



"""Simulated matches between two strategies: sampled games, their mean payoff and its
confidence interval (the exact counterpart is ``Evaluator.head_to_head``).

1. Draw the deals by their probabilities from ``Game.deals``, one per game.
2. Walk the public tree level by level. At each level, every game still at a decision node
   looks up its infoset row exactly as the engine does,
   ``layout.node_offset[node] + game.private_index(history, player, deals)``, and samples
   its action from the row of the seat's strategy (inverse CDF on one uniform draw).
3. Each game's payoff is player 1's utility at its terminal (``Game.terminal_utilities``).

Numpy over games; Python loops only over tree levels and the nodes of a level.

Games too large to enumerate (5-card draw27) have no ``deals()``: ``simulate_sampled`` plays
their per-class strategy tables on deals from the game's own sampler (``SampledDraw27``),
each deal scored by its exact expectation over both players' mixed actions and the draws. For draw27
the payoff at a terminal is already an exact expectation over the draws, so a simulated
game samples the hands and the decisions, not the cards drawn (a lower-variance estimate of
the same value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.games.tree import TERMINAL

BATCH = 1 << 19  # games simulated at once (memory: a few arrays of this length)
SAMPLED_SHARD = 1 << 20  # the deal stream of matches in a sampled game (solves use shards 0, 1, ...)


@dataclass(frozen=True)
class SimulationResult:
    """Player 1's payoff over ``games`` simulated games: mean and standard error."""

    games: int
    mean: float
    stderr: float

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Normal-approximation confidence interval for the expected payoff."""
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        return self.mean - z * self.stderr, self.mean + z * self.stderr

    @property
    def ci95(self) -> tuple[float, float]:
        return self.interval(0.95)

    @staticmethod
    def combine(first: SimulationResult, second: SimulationResult, sign: float = -1.0) -> SimulationResult:
        """The mean of two independent simulations, the second's payoff times ``sign`` (by
        default: one player's average over both seats, from the two seat assignments)."""
        return SimulationResult(first.games + second.games, (first.mean + sign * second.mean) / 2,
                                math.hypot(first.stderr, second.stderr) / 2)


def seat_profile(layout: Layout, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """(B, n_is, A) the profile where ``first`` plays player 1's rows and ``second`` player 2's."""
    profile = np.array(first, dtype=np.float64, copy=True)
    rows = layout.player_rows[1]
    profile[:, rows] = second[:, rows]
    return profile


def sample_deals(layout: Layout, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, n_cards) deals drawn independently by their probabilities."""
    cards, prob = layout.deals
    if (prob == prob[0]).all():
        return cards[rng.integers(len(prob), size=n)]
    return cards[rng.choice(len(prob), size=n, p=prob / prob.sum())]


def play(layout: Layout, profile: np.ndarray, deals: np.ndarray, rng: np.random.Generator,
         variant: int = 0) -> np.ndarray:
    """(n,) player 1's payoff in one game per deal (n, n_cards), both players sampling their
    actions from ``profile`` (B, n_is, A) of ``variant``."""
    game, tree = layout.game, layout.tree
    table = profile[variant]  # (n_is, A)
    n = len(deals)
    node = np.zeros(n, dtype=np.int64)  # current node of every game
    playing = np.arange(n)  # games still at a decision node
    for _ in range(tree.n_levels):
        at = node[playing]
        moving = tree.player[at] != TERMINAL
        playing, at = playing[moving], at[moving]
        if not len(playing):
            break
        rows = np.empty(len(playing), dtype=np.int64)
        for v, members in _groups(at):
            history, player = tree.histories[v], int(tree.player[v])
            rows[members] = layout.node_offset[v] + game.private_index(history, player, deals[playing[members]])
        cdf = np.cumsum(table[rows], axis=1)  # (m, A); padding columns add 0
        u = rng.random(len(playing)) * cdf[:, -1]  # below the row's total: only actions played with p > 0
        action = np.minimum((cdf <= u[:, None]).sum(axis=1), tree.n_children[at] - 1)
        node[playing] = tree.first_child[at] + action
    payoff = np.empty(n)
    for t, members in _groups(node):
        payoff[members] = game.terminal_utilities([tree.histories[t]], deals[members])[0, variant]
    return payoff


def simulate(layout: Layout, first: np.ndarray, second: np.ndarray, games: int, seed=None,
             variant: int = 0) -> SimulationResult:
    """Player 1's payoff over ``games`` simulated games with ``first`` (B, n_is, A) in seat 1
    and ``second`` in seat 2. ``seed`` is an int, None or a ``np.random.Generator``."""
    if games < 2:
        raise ValueError("simulate at least 2 games")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    profile = seat_profile(layout, first, second)
    total = total_sq = 0.0
    for start in range(0, games, BATCH):
        n = min(BATCH, games - start)
        payoff = play(layout, profile, sample_deals(layout, n, rng), rng, variant)
        total += float(payoff.sum())
        total_sq += float(payoff @ payoff)
    mean = total / games
    variance = max(total_sq - games * mean * mean, 0.0) / (games - 1)
    return SimulationResult(games, mean, math.sqrt(variance / games))


def simulate_sampled(kernel, first: dict, second: dict, games: int, seed: int = 0, stream: int = 0,
                     batch: int = 20_000) -> list[SimulationResult]:
    """Per stack, the button's payoff over ``games`` deals of a sampled game (``SampledDraw27``)
    with ``first``'s tables in seat 1 and ``second``'s in seat 2; deals from the game's stream
    keyed by (``seed``, SAMPLED_SHARD + ``stream``, batch number): the same seed and stream give
    the same deals."""
    if games < 2:
        raise ValueError("simulate at least 2 games")
    sigma = {b.name: (first if b.player == 0 else second)[b.name] for b in kernel.strategy_tables}
    n_stacks = len(kernel.stacks)
    total, total_sq = np.zeros(n_stacks), np.zeros(n_stacks)
    for k, start in enumerate(range(0, games, batch)):
        deals = kernel.sample_deals(seed, SAMPLED_SHARD + stream, k, min(batch, games - start))
        values = kernel.deal_values(sigma, deals)  # (D, B)
        total += values.sum(axis=0)
        total_sq += (values * values).sum(axis=0)
    mean = total / games
    variance = np.maximum(total_sq - games * mean * mean, 0.0) / (games - 1)
    return [SimulationResult(games, float(m), float(np.sqrt(v / games))) for m, v in zip(mean, variance)]


def _groups(values: np.ndarray):
    """(value, indices where it occurs) for each distinct value, in increasing order."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    edges = np.flatnonzero(np.diff(ordered)) + 1
    for chunk in np.split(order, edges):
        yield int(values[chunk[0]]), chunk

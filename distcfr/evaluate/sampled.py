"""Sampled draw27 strategies held to exact answers: their class tables mapped onto the exact
``draw27`` game (for configurations small enough to enumerate), and the sampled exploitability
bracket that stands in for an exact best response where none is in reach.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.games.draw27 import Draw27
from distcfr.games.draw27_sampled import SampledDraw27


# ---- the exact game ------------------------------------------------------------------------------------
def exact_layout(game: SampledDraw27):
    """The infoset layout of the exact ``draw27`` game of the same configuration (the one place that
    uses the exact engine)."""
    exact = Draw27(Draw27.Params(ranks=game.ranks, suits=game.suits, hand=game.hand,
                                 stacks=tuple(float(s) for s in game.stacks)))
    exact.validate()
    return Layout(exact)


def exact_masks(game: SampledDraw27, hands: np.ndarray) -> np.ndarray:
    """(n, M) the exact game's discard mask (bit j = j-th lowest card id) of each canonical mask of each
    hand (n, H): the same cards discarded."""
    _, canonical = game.classes.classify(hands)
    place = (canonical[:, :, None] > np.sort(hands, axis=1)[:, None, :]).sum(2)  # (n, H) ascending place
    bits = (np.arange(game.n_masks)[None, :, None] >> np.arange(game.hand)) & 1  # (1, M, H)
    return (bits << place[:, None, :]).sum(2)


def to_exact_strategy(game: SampledDraw27, tables: dict[str, np.ndarray]):
    """(layout, probs): class tables mapped to the exact game's (n_stacks, n_infosets, max_actions) table."""
    layout = exact_layout(game)
    exact = layout.game
    hands = exact.hands()  # (n_hands, H) ascending
    ids, _ = game.classes.classify(hands)
    masks = exact_masks(game, hands)  # (n_hands, M)
    probs = np.zeros((len(game.stacks), layout.n_infosets, layout.max_actions))
    labels = [exact.hand_label(h) for h in hands]
    row = np.array([[layout.label_index[f"{lab}|{obs}"] for obs in ("", "a", "ac")] for lab in labels])
    for col, name in enumerate(("btn_push", "bb_call")):
        probs[:, row[:, col], :2] = tables[name][ids].transpose(1, 0, 2)
    probs[:, row[:, 2][:, None], masks] = tables["bb_draw"][ids].transpose(1, 0, 2)
    for k in range(game.hand + 1):
        rows_k = np.array([layout.label_index[f"{lab}|ac{k}"] for lab in labels])
        probs[:, rows_k[:, None], masks] = tables["btn_draw"][ids, k].transpose(1, 0, 2)
    return layout, probs


# ---- exploitability bracket ------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Bracket:
    """Sampled exploitability, BB per hand, per stack (B,): ``low`` scores best responses chosen on one sample
    set on an independent set (biased down), ``high`` is their in-sample value (biased up); ``*_se`` are
    standard errors from per-deal values. ``value`` is the profile's button value; ``visits`` (min, median)
    deals per class in the choosing set, per player."""

    low: np.ndarray
    low_se: np.ndarray
    high: np.ndarray
    high_se: np.ndarray
    value: np.ndarray
    value_se: np.ndarray
    visits: tuple[tuple[int, float], tuple[int, float]]


def _one_hot(values: np.ndarray) -> np.ndarray:
    """Pure strategy picking the largest value over the last axis."""
    return (np.arange(values.shape[-1]) == values.argmax(-1)[..., None]).astype(np.float64)


def best_responses(game: SampledDraw27, sigma: dict[str, np.ndarray], deals: np.ndarray) -> tuple[dict, dict]:
    """(button's, big blind's) best response to ``sigma`` on these deals, each a full profile: draws
    chosen first from summed counterfactual values, then push / call using the chosen draws. Classes the
    deals do not reach keep ``sigma``."""
    out = []
    for player, (draw, first) in enumerate([("btn_draw", "btn_push"), ("bb_draw", "bb_call")]):
        profile = {name: table.copy() for name, table in sigma.items()}
        for name in (draw, first):
            got = game.cfr_values(profile, deals, players=(player,))[name]
            profile[name][got.rows] = _one_hot(got.q)
        out.append(profile)
    return out[0], out[1]


def _mean_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over deals (axis 0) and its standard error."""
    return x.mean(0), x.std(0, ddof=1) / np.sqrt(len(x))


def exploitability_bracket(game: SampledDraw27, sigma: dict[str, np.ndarray], seed: int, n: int) -> Bracket:
    """Sampled exploitability bracket of ``sigma`` from two independent sets of ``n`` deals (streams
    (seed, 0, 0) to choose best responses, (seed, 1, 0) to score them)."""
    choose, score = game.sample_deals(seed, 0, 0, n), game.sample_deals(seed, 1, 0, n)
    br_button, br_blind = best_responses(game, sigma, choose)

    def gap(deals):  # (D, B) per-deal (BR1 + BR2) / 2, each in its own payoff
        return (game.deal_values(br_button, deals) - game.deal_values(br_blind, deals)) / 2

    low, low_se = _mean_se(gap(score))
    high, high_se = _mean_se(gap(choose))
    value, value_se = _mean_se(game.deal_values(sigma, score))
    h = game.hand
    visits = tuple((int(c.min()), float(np.median(c))) for c in (
        np.bincount(game.classes.classify(choose[:, p * h:(p + 1) * h])[0], minlength=game.n_classes)
        for p in (0, 1)))
    return Bracket(low, low_se, high, high_se, value, value_se, visits)


__all__ = ["Bracket", "best_responses", "exact_layout", "exact_masks", "exploitability_bracket", "to_exact_strategy"]

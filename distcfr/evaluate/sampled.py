"""Sampled draw27 strategies held to exact answers: their class tables mapped onto the exact
``draw27`` game (for configurations small enough to enumerate), and the sampled exploitability
bracket that stands in for an exact best response where none is in reach.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.engine.sampled_bracket import bracket_chunk, bracket_chunks, chunk_total
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
    standard errors. ``value`` is the profile's button value; ``per_class`` the deals per hand class in
    each set."""

    low: np.ndarray
    low_se: np.ndarray
    high: np.ndarray
    high_se: np.ndarray
    value: np.ndarray
    value_se: np.ndarray
    per_class: int


def bracket_from_sums(sums: list[np.ndarray], per_class: int) -> Bracket:
    """The bracket from each player's (6, B) chunk total (see :func:`bracket_chunk`)."""
    def gap(i):  # (BR1 + BR2) / 2 and its standard error, each best response in its own payoff
        return (sums[0][i] - sums[1][i]) / 2, np.sqrt(sums[0][i + 1] + sums[1][i + 1]) / 2

    return Bracket(*gap(2), *gap(0), sums[0][4], np.sqrt(sums[0][5]), per_class)


def exploitability_bracket(game: SampledDraw27, sigma: dict[str, np.ndarray], seed: int, per_class: int) -> Bracket:
    """Sampled exploitability bracket of ``sigma`` from, per player, two independent stratified sets of
    ``per_class`` deals per hand class: one to choose the player's best response (and score it in-sample:
    ``high``), one to score it (``low``) and the profile itself (``value``). In this process; a sampled
    solve's shards evaluate the same chunks where its rows lie (same bits)."""
    chunks = bracket_chunks(game, per_class)
    return bracket_from_sums([chunk_total(bracket_chunk(game, sigma, seed, per_class, player, first, stop)
                                          for first, stop in chunks) for player in (0, 1)], per_class)


__all__ = ["Bracket", "bracket_from_sums", "exact_layout", "exact_masks", "exploitability_bracket",
           "to_exact_strategy"]

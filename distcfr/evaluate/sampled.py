"""The sampled exploitability bracket: it stands in for an exact best response where none is in
reach (its chunks' work: distcfr.engine.sampled_bracket)."""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.engine.sampled_bracket import (
    BRACKET_STUBS,
    FOCUS_SHARE,
    GATE_Z,
    REFINE,
    REFINE_ROUNDS,
    BracketSums,
    bracket_chunk,
    bracket_chunks,
    chunk_total,
    focus,
    focus_chunk,
)

Z95 = 1.96  # standard errors either side of a normal estimate's 95% interval
Z95_OF_TWO = 2.241  # below the larger of two lower estimates: each at 1.25%, together at most 2.5% too high


# ---- exploitability bracket ------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Bracket:
    """Sampled exploitability, BB per hand, per stack (B,): ``low`` scores best responses chosen on one sample
    set on an independent set (biased down; each plays the profile wherever it showed no gain: the
    gate), ``high`` is their in-sample value (biased up, less so where a class's best response was
    chosen again on more deals); both are the best responses' gains over the profile on the same
    deals, so the deals' luck mostly cancels. ``*_se`` are standard errors. ``value``
    is the profile's button value; ``per_class`` the deals per hand class in each set; ``extra_deals``
    those drawn again for the classes whose best response was close, in at most ``rounds`` rounds (both
    players: see distcfr.engine.sampled_bracket.bracket_chunk); ``focus_deals`` the focus round's (the
    classes least certain chosen again: :func:`~distcfr.engine.sampled_bracket.focus`; their in-sample
    gains replace theirs in ``high``). A run's bracket also scores each player's
    latest iterate as a response on the same independent deals (``latest_low``: a second lower estimate,
    chosen from every deal of the run rather than a bracket's few; None where there is none, as for a
    strategy file)."""

    low: np.ndarray
    low_se: np.ndarray
    high: np.ndarray
    high_se: np.ndarray
    value: np.ndarray
    value_se: np.ndarray
    per_class: int
    extra_deals: int = 0
    rounds: int = REFINE_ROUNDS
    latest_low: np.ndarray | None = None
    latest_low_se: np.ndarray | None = None
    focus_deals: int = 0

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """Per stack, the 95% interval the bracket reports: the lower estimate less 1.96 standard
        errors (at least 0; with the latest iterate's, the larger of the two less 2.241 of its own),
        the upper estimate plus 1.96 (its upper end: what a target is held to)."""
        if self.latest_low is None:
            low = self.low - Z95 * self.low_se
        else:
            low = np.maximum(self.low - Z95_OF_TWO * self.low_se, self.latest_low - Z95_OF_TWO * self.latest_low_se)
        high = self.high + Z95 * self.high_se
        # both ends bound one number; where the noise of two independent sets lifts the lower end above the
        # upper, the upper end stands for both (it is the one a target is held to)
        return np.minimum(np.maximum(low, 0.0), high), high

    def resolution(self) -> np.ndarray:
        """Per stack, how far above the strategy's exploitability the upper end sits at these
        samples: the gap between the two estimates (best responses fitted to their own deals gain
        more as the strategy nears equilibrium) plus the upper end's 1.96 standard errors. Both
        shrink as the square root of ``per_class``."""
        return np.maximum(self.high - self.low, 0.0) + Z95 * self.high_se


def bracket_from_sums(sums: list[BracketSums], per_class: int, rounds: int = REFINE_ROUNDS,
                      latest: bool = False) -> Bracket:
    """The bracket from each player's chunk total (see :func:`bracket_chunk`; ``latest``: it scored a
    latest iterate)."""
    def in_sample(player):  # each class's part is at least 0 in the player's payoff (no_worse_than_profile):
        # so is their total, which the focus round's swap (a subtraction) may round a few ulps past 0
        sign, own = 1 - 2 * player, sums[player]
        return dataclasses.replace(own, high=sign * np.maximum(sign * own.high, 0.0),
                                   high_var=np.maximum(own.high_var, 0.0))

    button, big_blind = in_sample(0), in_sample(1)

    def gap(name):  # (BR1 + BR2) / 2 and its standard error, each best response in its own payoff
        return ((getattr(button, name) - getattr(big_blind, name)) / 2,
                np.sqrt(getattr(button, name + "_var") + getattr(big_blind, name + "_var")) / 2)

    extra, focused = (int(getattr(button, name)[0] + getattr(big_blind, name)[0])
                      for name in ("refined_deals", "focus_deals"))
    return Bracket(*gap("low"), *gap("high"), button.value, np.sqrt(button.value_var), per_class, extra, rounds,
                   *(gap("latest") if latest else (None, None)), focus_deals=focused)


def exploitability_bracket(game, sigma: dict[str, np.ndarray], seed: int, per_class: int,
                           refine: int = REFINE, stubs: int = BRACKET_STUBS, gate: float = GATE_Z,
                           rounds: int = REFINE_ROUNDS, latest: dict[str, np.ndarray] | None = None,
                           focus_share: int = FOCUS_SHARE) -> Bracket:
    """Sampled exploitability bracket of ``sigma`` from, per player, two independent stratified sets of
    ``per_class`` deals per hand class: one to choose the player's best response (and score it in-sample:
    ``high``), one to score it (``low``) and the profile itself (``value``); classes whose best
    response is close choose it again on ``refine`` times more deals (0: not), up to ``rounds``
    times while they stay close; then the few classes whose in-sample gain is least certain choose it
    again on ``focus_share`` times the player's first deals between them (the focus round:
    :func:`~distcfr.engine.sampled_bracket.focus`; 0: none); every deal holds ``stubs`` stubs; the
    scored response keeps the profile's play where its in-sample gain is within ``gate`` standard
    errors of zero; ``latest`` (both players' tables) is scored as a response too. In this process; a
    sampled solve's shards evaluate the same chunks where its rows lie (same bits)."""
    chunks = bracket_chunks(game, per_class)

    def rechosen(player):
        return lambda parts, deals: chunk_total(focus_chunk(game, sigma, seed, deals, player, first, stop, stubs)
                                                for first, stop in parts)

    return bracket_from_sums([focus(chunk_total(bracket_chunk(game, sigma, seed, per_class, player, first, stop,
                                                              refine, stubs, gate, rounds, latest, focus_share > 0)
                                                for first, stop in chunks),
                                    game.n_classes, per_class, refine, rounds, focus_share, rechosen(player))
                              for player in (0, 1)], per_class, rounds if refine > 0 else 0, latest is not None)


__all__ = ["Z95", "Z95_OF_TWO", "Bracket", "bracket_from_sums", "exploitability_bracket"]

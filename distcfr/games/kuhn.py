"""Kuhn poker (Kuhn 1950): cards J < Q < K, one each, ante 1, one bet of 1.

Known equilibrium value for player 1: -1/18. Actions are coded as OpenSpiel does:
``p`` (check, or fold facing a bet) and ``b`` (bet, or call facing a bet).
"""

from __future__ import annotations

import itertools

import numpy as np

from distcfr.games.base import Game, History

RANKS = "JQK"


class Kuhn(Game):
    name = "kuhn"

    def actions(self, history: History):
        h = "".join(history)
        if h in ("", "p"):
            return (("p", "check"), ("b", "bet"))
        if h in ("b", "pb"):
            return (("p", "fold"), ("b", "call"))
        return ()

    def player(self, history: History) -> int:
        return len(history) % 2

    def deals(self):
        cards = np.array(list(itertools.permutations(range(3), 2)), dtype=np.int64)  # (6, 2)
        return cards, np.full(len(cards), 1 / len(cards))

    def private_labels(self, history: History, player: int):
        return tuple(RANKS)

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        return deals[:, player]

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        h = "".join(history)
        winner_sign = np.where(deals[:, 0] > deals[:, 1], 1.0, -1.0)  # (n,)
        payoff = {"pp": winner_sign, "bb": 2 * winner_sign, "pbb": 2 * winner_sign,
                  "bp": np.ones(len(deals)), "pbp": -np.ones(len(deals))}[h]
        return payoff[None, :]

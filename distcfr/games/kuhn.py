"""Kuhn poker (Kuhn 1950): cards J < Q < K, one each, ante 1, one bet of 1.

Known equilibrium value for player 1: -1/18.
"""

from __future__ import annotations

import itertools

import numpy as np

from distcfr.games import one_bet
from distcfr.games.base import Game, History

RANKS = "JQK"


class Kuhn(Game):
    name = "kuhn"
    default_algorithm = "pcfr+"  # 1e-6 in a few hundred iterations; dcfr needs thousands
    default_target = 1e-6

    def actions(self, history: History):
        return one_bet.actions(history)

    def player(self, history: History) -> int:
        return one_bet.player(history)

    def deals(self):
        cards = np.array(list(itertools.permutations(range(3), 2)), dtype=np.int64)  # (6, 2)
        return cards, np.full(len(cards), 1 / len(cards))

    def private_labels(self, history: History, player: int):
        return tuple(RANKS)

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        return deals[:, player]

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        return one_bet.utility(history, np.sign(deals[:, 0] - deals[:, 1]).astype(np.float64))

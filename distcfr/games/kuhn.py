"""Kuhn poker (Kuhn 1950): cards J < Q < K, one each, ante 1, one bet of 1.

Known equilibrium value for player 1: -1/18.
"""

from __future__ import annotations

import itertools

import numpy as np

from distcfr.games import one_bet
from distcfr.games.base import Game, History
from distcfr.games.table import Table, prob_lookup

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

    def tables(self, strategy, variant: int) -> list[Table]:
        p = prob_lookup(strategy, variant)
        first = Table("player 1", ["check", "bet", "fold after check-bet", "call after check-bet"])
        second = Table("player 2", ["check after check", "bet after check", "fold to bet", "call bet"])
        for card in "JQK":
            first.rows.append((card, [p(f"{card}|", "check"), p(f"{card}|", "bet"),
                                      p(f"{card}|pb", "fold"), p(f"{card}|pb", "call")]))
            second.rows.append((card, [p(f"{card}|p", "check"), p(f"{card}|p", "bet"),
                                       p(f"{card}|b", "fold"), p(f"{card}|b", "call")]))
        return [first, second]

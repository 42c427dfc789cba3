"""community13 (the simplified13_cfr write-up, docs/SEEDS.md; rules in docs/GAMES.md): 13 cards
of one suit, one private card each and one community card, ante 1, the one-bet round of Kuhn poker.

Showdown: a private card adjacent in rank to the community card (no wrap-around) makes a
straight; a straight beats none; of two straights the higher top card wins. With no straight
the higher private card wins, except when both private cards are below the community card:
then it is a draw. ``board=visible`` (default) deals the community card face up before the
betting; ``board=hidden`` keeps it face down until the showdown.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from distcfr.cards import RANKS  # the 13 ranks 2..A
from distcfr.errors import BadParameter
from distcfr.games import one_bet
from distcfr.games.base import Game, History
from distcfr.games.table import Table, prob_lookup


class Community13(Game):
    name = "community13"
    default_algorithm = "pcfr+"  # 1e-6 in a few hundred iterations; dcfr needs thousands
    default_target = 1e-6

    @dataclasses.dataclass(frozen=True)
    class Params:
        board: str = "visible"

    def validate(self) -> None:
        if self.params.board not in ("visible", "hidden"):
            raise BadParameter(f"community13 board must be visible or hidden, got {self.params.board!r}")

    def actions(self, history: History):
        return one_bet.actions(history)

    def player(self, history: History) -> int:
        return one_bet.player(history)

    def deals(self):
        cards = np.array(list(itertools.permutations(range(13), 3)), dtype=np.int64)  # (1716, 3): p1, p2, board
        return cards, np.full(len(cards), 1 / len(cards))

    def private_labels(self, history: History, player: int):
        if self.params.board == "hidden":
            return tuple(RANKS)
        return tuple(f"{own}/{board}" for own in RANKS for board in RANKS)

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        if self.params.board == "hidden":
            return deals[:, player]
        return deals[:, player] * 13 + deals[:, 2]

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        return one_bet.utility(history, showdown_sign(deals[:, 0], deals[:, 1], deals[:, 2]))

    def tables(self, strategy, variant: int) -> list[Table]:
        p = prob_lookup(strategy, variant)
        spots = (("player 1 bets first", "", "bet"), ("player 1 calls after check-bet", "pb", "call"),
                 ("player 2 bets after a check", "p", "bet"), ("player 2 calls a bet", "b", "call"))
        if self.params.board == "hidden":
            table = Table("probability per private card (board hidden)", [s[0] for s in spots])
            table.rows = [(r, [p(f"{r}|{h}", a) for _, h, a in spots]) for r in RANKS]
            return [table]
        tables = []
        for title, history, action in spots:
            table = Table(f"{title}: private card (rows) x community card (columns)", list(RANKS))
            table.rows = [(own, [p(f"{own}/{board}|{history}", action) if own != board else None
                                 for board in RANKS]) for own in RANKS]
            tables.append(table)
        return tables


def showdown_sign(p1: np.ndarray, p2: np.ndarray, board: np.ndarray) -> np.ndarray:
    """(n,) +1 where player 1 wins, -1 where player 2 wins, 0 for a draw (ranks as ints)."""
    top1 = np.where(np.abs(p1 - board) == 1, np.maximum(p1, board), -1)  # straight's top card
    top2 = np.where(np.abs(p2 - board) == 1, np.maximum(p2, board), -1)
    straights = np.sign(top1 - top2)
    high = np.where((p1 < board) & (p2 < board), 0, np.sign(p1 - p2))
    return np.where((top1 >= 0) | (top2 >= 0), straights, high).astype(np.float64)

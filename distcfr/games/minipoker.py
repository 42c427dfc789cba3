"""minipoker (the minipoker_annealing write-up, docs/SEEDS.md): N distinct ranks, one card each,
pot 2 (ante 1).

Player A (1) checks or bets 1; after a check B (2) checks or bets 1. Facing a bet: fold,
call, or raise to 3; facing the raise the bettor folds or calls. Higher card wins.
Codes: k check, b bet, f fold, c call, r raise.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from distcfr.cards import RANKS  # 2..A; minipoker uses the lowest `ranks` of them
from distcfr.errors import BadParameter
from distcfr.games.base import Game, History
from distcfr.games.table import Table, prob_lookup

_ACTIONS = {
    "": (("k", "check"), ("b", "bet")),
    "k": (("k", "check"), ("b", "bet")),
    "b": (("f", "fold"), ("c", "call"), ("r", "raise")),
    "kb": (("f", "fold"), ("c", "call"), ("r", "raise")),
    "br": (("f", "fold"), ("c", "call")),
    "kbr": (("f", "fold"), ("c", "call")),
}
_SHOWDOWN_STAKE = {"kk": 1, "bc": 2, "kbc": 2, "brc": 4, "kbrc": 4}
_FOLD_PAYOFF = {"bf": 1.0, "kbf": -1.0, "brf": -2.0, "kbrf": 2.0}


class MiniPoker(Game):
    name = "minipoker"
    default_algorithm = "pcfr+"  # 1e-6 in a few hundred iterations; dcfr needs thousands
    default_target = 1e-6

    @dataclasses.dataclass(frozen=True)
    class Params:
        ranks: int = 13

    def validate(self) -> None:
        if not 2 <= self.params.ranks <= 13:
            raise BadParameter(f"minipoker ranks must be between 2 and 13, got {self.params.ranks}")

    @property
    def rank_labels(self) -> str:
        return RANKS[: self.params.ranks]

    def actions(self, history: History):
        return _ACTIONS.get("".join(history), ())

    def player(self, history: History) -> int:
        return len(history) % 2

    def deals(self):
        n = self.params.ranks
        cards = np.array(list(itertools.permutations(range(n), 2)), dtype=np.int64)  # (n(n-1), 2)
        return cards, np.full(len(cards), 1 / len(cards))

    def private_labels(self, history: History, player: int):
        return tuple(self.rank_labels)

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        return deals[:, player]

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        h = "".join(history)
        if h in _FOLD_PAYOFF:
            return np.full((1, len(deals)), _FOLD_PAYOFF[h])
        sign = np.sign(deals[:, 0] - deals[:, 1]).astype(np.float64)
        return (sign * _SHOWDOWN_STAKE[h])[None, :]

    def tables(self, strategy, variant: int) -> list[Table]:
        ranks = self.rank_labels[::-1]
        p = prob_lookup(strategy, variant)
        tables = []
        for who, bet_at, facing_bet, facing_raise in (("A (first to act)", "", "kb", "br"),
                                                       ("B (second to act)", "k", "b", "kbr")):
            table = Table(f"player {who}", [("10" if r == "T" else r) for r in ranks])
            bet, cont, raise_, call_raise = [], [], [], []
            for r in ranks:
                bet.append(p(f"{r}|{bet_at}", "bet"))
                go_on = 1 - p(f"{r}|{facing_bet}", "fold")
                cont.append(go_on)
                raise_.append(p(f"{r}|{facing_bet}", "raise") / go_on if go_on > 1e-12 else None)
                call_raise.append(p(f"{r}|{facing_raise}", "call"))
            table.rows = [("Bet", bet), ("Continue", cont), ("Raise", raise_), ("Call Raise", call_raise)]
            tables.append(table)
        return tables

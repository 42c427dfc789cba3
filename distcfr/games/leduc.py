"""Leduc hold'em, the same rules as OpenSpiel's ``leduc_poker``.

Six cards (J, Q, K in two suits), ante 1, one private card each, one public card after
round 1. Bet/raise size 2 in round 1 and 4 in round 2, at most two bets/raises per round;
fold is legal only when facing a bet. Pairing the board wins, else the higher card; equal
ranks split. Known value for player 1: about -0.0856064.

Suits never matter, so information sets use ranks only (an exact, lossless merge).
Actions: ``f`` fold, ``c`` check/call, ``r`` bet/raise; observations write the rounds as
``"<round 1>.<round 2>"``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from distcfr.games.base import Game, History
from distcfr.games.table import Table, mix_cell

RANKS = "JQK"
RAISE_SIZE = (2, 4)
MAX_RAISES = 2
ROUND_HISTORIES = ("", "c", "r", "cr", "rr", "crr")  # where someone acts within a round (either round)
ROUND_ONE_ENDS = ("cc", "rc", "crc", "rrc", "crrc")  # the round-1 betting that reaches round 2
CODES = {"fold": "f", "check": "c", "call": "c", "bet": "r", "raise": "r"}


@dataclass(frozen=True)
class BettingState:
    round: int
    round2_start: int | None  # index in the history where round 2 begins
    raises: int
    contributions: tuple[int, int]
    to_act: int
    folded: int | None
    showdown: bool


def replay(history: History) -> BettingState:
    """The betting state after the action codes ``history`` (also used by OpenSpiel exports)."""
    c = [1, 1]
    rnd, raises, in_round, to_act, start2 = 0, 0, 0, 0, None
    for i, code in enumerate(history):
        p = to_act
        if code == "f":
            return BettingState(rnd, start2, raises, (c[0], c[1]), p, p, False)
        in_round += 1
        if code == "c":
            facing = c[1 - p] > c[p]
            c[p] = c[1 - p]
            if facing or in_round >= 2:
                if rnd == 1:
                    return BettingState(rnd, start2, raises, (c[0], c[1]), p, None, True)
                rnd, raises, in_round, to_act, start2 = 1, 0, 0, 0, i + 1
                continue
        else:  # "r"
            c[p] = c[1 - p] + RAISE_SIZE[rnd]
            raises += 1
        to_act = 1 - p
    return BettingState(rnd, start2, raises, (c[0], c[1]), to_act, None, False)


class Leduc(Game):
    name = "leduc"

    def actions(self, history: History):
        s = replay(history)
        if s.folded is not None or s.showdown:
            return ()
        facing = s.contributions[1 - s.to_act] > s.contributions[s.to_act]
        legal = [("f", "fold")] if facing else []
        legal.append(("c", "call" if facing else "check"))
        if s.raises < MAX_RAISES:
            legal.append(("r", "raise" if facing else "bet"))
        return tuple(legal)

    def player(self, history: History) -> int:
        return replay(history).to_act

    def observation(self, history: History, player: int) -> str:
        s = replay(history)
        if s.round2_start is None:
            return "".join(history)
        return "".join(history[: s.round2_start]) + "." + "".join(history[s.round2_start :])

    def deals(self):
        cards = np.array(list(itertools.permutations(range(6), 3)), dtype=np.int64)  # (120, 3)
        return cards, np.full(len(cards), 1 / len(cards))

    def private_labels(self, history: History, player: int):
        if replay(history).round == 0:
            return tuple(RANKS)
        return tuple(f"{own}/{board}" for own in RANKS for board in RANKS)

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        own = deals[:, player] // 2
        if replay(history).round == 0:
            return own
        return own * 3 + deals[:, 2] // 2

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        s = replay(history)
        if s.folded is not None:
            payoff = -s.contributions[0] if s.folded == 0 else s.contributions[1]
            return np.full((1, len(deals)), float(payoff))
        ranks = deals // 2  # (n, 3)
        strength = ranks[:, :2] + 10 * (ranks[:, :2] == ranks[:, 2:3])  # pair beats any card
        sign = np.sign(strength[:, 0] - strength[:, 1]).astype(np.float64)
        return (sign * s.contributions[0])[None, :]

    def tables(self, strategy, variant: int) -> list[Table]:
        """Round 1: per private card (rows) and betting so far (columns); round 2, one table per
        round-1 betting: per private card / board (rows) and round-2 betting (columns). Cells:
        each action's probability (``c.38 r.62``)."""

        def heading(history: str) -> str:
            return f"P{replay(tuple(history)).to_act + 1}: {history or 'start'}"

        def cell(label: str) -> str:
            return mix_cell(strategy.action_probs(label, variant), CODES)

        first = Table("round 1: private card (rows) x betting so far (columns, P1/P2 = who acts). Cells: "
                      "probability of f fold, c check/call, r bet/raise (under .005 left out; 1 = always)",
                      [heading(h) for h in ROUND_HISTORIES])
        first.rows = [(own, [cell(f"{own}|{h}") for h in ROUND_HISTORIES]) for own in RANKS]
        tables = [first]
        for before in ROUND_ONE_ENDS:
            table = Table(f"round 2 after {before}: private card/board (rows) x round-2 betting (columns)",
                          [heading(h) for h in ROUND_HISTORIES])
            table.rows = [(f"{own}/{board}", [cell(f"{own}/{board}|{before}.{h}") for h in ROUND_HISTORIES])
                          for own in RANKS for board in RANKS]
            tables.append(table)
        return tables

"""The betting round Kuhn poker and community13 share: ante 1 each, one bet of 1, no raise.

Codes as in OpenSpiel's Kuhn: ``p`` (check, or fold facing a bet) and ``b`` (bet, or call).
pp: showdown for 1; bp: player 1 wins 1; pbp: player 2 wins 1; bb, pbb: showdown for 2.
"""

from __future__ import annotations

import numpy as np

from distcfr.games.base import History

_CHECK_OR_BET = (("p", "check"), ("b", "bet"))
_FOLD_OR_CALL = (("p", "fold"), ("b", "call"))
_SHOWDOWN_STAKE = {"pp": 1, "bb": 2, "pbb": 2}
_FOLD_PAYOFF = {"bp": 1.0, "pbp": -1.0}


def actions(history: History):
    h = "".join(history)
    if h in ("", "p"):
        return _CHECK_OR_BET
    if h in ("b", "pb"):
        return _FOLD_OR_CALL
    return ()


def player(history: History) -> int:
    return len(history) % 2


def utility(history: History, showdown_sign: np.ndarray) -> np.ndarray:
    """(1, n) player 1's payoff at a terminal; ``showdown_sign`` (n,) is +1/0/-1 per deal."""
    h = "".join(history)
    if h in _FOLD_PAYOFF:
        return np.full((1, len(showdown_sign)), _FOLD_PAYOFF[h])
    return (showdown_sign * float(_SHOWDOWN_STAKE[h]))[None, :]

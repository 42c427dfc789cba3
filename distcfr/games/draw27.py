"""draw27 (the pushfold_2to7 write-up, docs/SEEDS.md; rules in docs/GAMES.md): deuce-to-seven
lowball, push or fold before one draw.

Button (player 1) posts 0.5 BB, big blind (player 2) 1 BB. The button pushes all-in to the
stack S or folds (-0.5); facing the push the big blind calls or folds (+1). When both are
all-in, the big blind discards any subset of its hand and draws as many from the stub, then
the button, who has seen how many cards the big blind drew (not which), does the same.
Discards are not reshuffled. The lower hand (``distcfr.cards.lowball27_rank``) wins S.

The draws are the last chance event and no decision follows them, so their chance is
folded into the terminal payoff as an exact expectation (``showdown_equity``); the deals are
the two starting hands, every pair enumerated. ``stacks`` is one size (``3``) or an inclusive
range (``1.5:10:0.5``): each stack is a variant of one solve sharing tree and deals.
Actions: ``f`` fold, ``a`` push, ``c`` call; a draw is one character per discard mask
(``0`` stands pat; bit j of the mask discards the j-th lowest card of the hand).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from distcfr.errors import BadParameter
from distcfr.games.base import History
from distcfr.games.draw_equity import draw_pairs_per_deal
from distcfr.games.lowball_deck import DeckParams, LowballDeckGame

MASK_CODES = "0123456789abcdefghijklmnopqrstuv"  # one character per discard mask (hand <= 5)
MAX_EXACT_DEALS = 3_000_000
MAX_EXACT_DRAW_PAIRS = 5e11  # showdown pairs of the exact draw expectation: more is solved by sampling


class Draw27(LowballDeckGame):
    name = "draw27"
    default_algorithm = "pcfr+"  # the fastest rule to 1e-5 BB here (python -m distcfr.compare)
    default_target = 1e-5
    unit = "BB"
    seats = ("button", "big blind")

    @dataclasses.dataclass(frozen=True)
    class Params(DeckParams):
        """draw27's: the deck, the hand size and the stacks (push or fold, then draw)."""

    def validate(self) -> None:
        self.validate_deck()
        stacks = self.params.stacks
        if min(stacks) < 1:
            raise BadParameter(f"stack {min(stacks):g} is smaller than the big blind (1)")

    def exact_size_problem(self) -> str | None:
        """Why this configuration is too large to enumerate (None when it is not): then it is solved
        by sampling (``distcfr.engine.kernels.sampled_kernel``)."""
        r, s, h = self.params.ranks, self.params.suits, self.params.hand
        if self.n_deals > MAX_EXACT_DEALS:
            return (f"draw27 with {r} ranks, {s} suits, {h} cards has {self.n_deals:,} deals, more than the "
                    f"{MAX_EXACT_DEALS:,} the exact solver enumerates")
        work = self.n_deals * draw_pairs_per_deal(r * s - 2 * h, h)
        if work > MAX_EXACT_DRAW_PAIRS:
            return (f"draw27 with {r} ranks, {s} suits, {h} cards needs {work:.1e} hand comparisons for its exact "
                    f"draw expectation (~{work / 7e8 / 60:,.0f} min here); the exact solver stops at "
                    f"{MAX_EXACT_DRAW_PAIRS:.0e}")
        return None

    # ---- cards ------------------------------------------------------------------------------
    @property
    def n_deals(self) -> int:
        n, h = self.params.ranks * self.params.suits, self.params.hand
        return math.comb(n, h) * math.comb(n - h, h)

    @property
    def cards_per_deal(self) -> int:
        return 2 * self.params.hand + 2  # both hands' cards, then both hands' indices

    def terminal_work_bytes(self, n_deals: int) -> int:
        return 4**self.params.hand * n_deals * 8  # the (2^H, 2^H, D) float64 equity

    def hands(self) -> np.ndarray:
        """(n_hands, H) every hand as ascending card ids, in combination order."""
        n, h = len(self.deck), self.params.hand
        return self.deck[np.array(list(itertools.combinations(range(n), h)), dtype=np.int64)]

    @property
    def default_shards(self) -> int:
        return int(np.clip(self.n_deals // 2048, 1, 32))

    # ---- rules --------------------------------------------------------------------------------
    def _draw_actions(self):
        h = self.params.hand
        out = []
        for mask in range(2**h):
            drop = [str(j + 1) for j in range(h) if mask >> j & 1]
            out.append((MASK_CODES[mask], "discard " + ",".join(drop) if drop else "stand pat"))
        return tuple(out)

    def actions(self, history: History):
        h = "".join(history)
        if h == "":
            return (("f", "fold"), ("a", "push"))
        if h == "a":
            return (("f", "fold"), ("c", "call"))
        if h.startswith("ac") and len(h) < 4:
            return self._draw_actions()
        return ()

    def player(self, history: History) -> int:
        return {0: 0, 1: 1, 2: 1, 3: 0}[len(history)]

    def observation(self, history: History, player: int) -> str:
        if len(history) == 3:  # the button sees how many cards the big blind drew, not which
            return "ac" + str(bin(MASK_CODES.index(history[2])).count("1"))
        return "".join(history)

    def deals(self):
        hands = self.hands()  # (n_hands, H)
        bits = (np.int64(1) << hands).sum(axis=1)  # (n_hands,) card set as a bit mask
        first, second = np.nonzero((bits[:, None] & bits[None, :]) == 0)  # disjoint hand pairs
        deals = np.concatenate([hands[first], hands[second], first[:, None], second[:, None]], axis=1)
        return deals, np.full(len(deals), 1 / len(deals))  # (n_deals, 2H + 2): cards, then hand indices

    def private_labels(self, history: History, player: int):
        return tuple(self.hand_label(hand) for hand in self.hands())

    def private_index(self, history: History, player: int, deals: np.ndarray) -> np.ndarray:
        return deals[:, 2 * self.params.hand + player]

    def terminal_utilities(self, histories, deals: np.ndarray) -> np.ndarray:
        from distcfr.games.draw_equity import showdown_equity  # builds the hand-rank table on first use

        h = self.params.hand
        stacks = np.array(self.params.stacks)  # (B,)
        equity = None
        out = np.empty((len(histories), len(stacks), len(deals)))
        for i, history in enumerate(histories):
            code = "".join(history)
            if code == "f":
                out[i] = -0.5
            elif code == "af":
                out[i] = 1.0
            else:
                if equity is None:  # (2^H, 2^H, D) [button mask, big blind mask, deal]
                    equity = showdown_equity(deals[:, :h], deals[:, h:2 * h], self.deck)
                m2, m1 = MASK_CODES.index(code[2]), MASK_CODES.index(code[3])
                out[i] = stacks[:, None] * equity[m1, m2][None, :]
        return out

    def utility(self, history: History, deals: np.ndarray) -> np.ndarray:
        return self.terminal_utilities([history], deals)[0]

    def tables(self, strategy, variant: int) -> list:
        from distcfr.games.draw27_tables import push_call_draw_table

        return push_call_draw_table(self, strategy, variant)

    def summary_tables(self, strategy) -> list:
        from distcfr.games.draw27_tables import push_call_summary

        return push_call_summary(self, strategy)

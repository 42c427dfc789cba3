"""Chance-sampled CFR kernel for deuce-to-seven single draw (``draw27``) at any size, up to 52 cards / 5 each.

The game is ``distcfr.games.draw27``'s (button = player 0 pushes or folds, big blind = player 1 calls or
folds, the big blind draws, then the button draws knowing how many cards the big blind took), but its
chance is sampled: a deal is both hands plus the order of the stub, so only the players' own actions are
enumerated. Strategies live in per-class tables (:mod:`distcfr.games.hand_classes`), one row per class of
suit-isomorphic hands, the stack axis next to the action axis so one gather brings every stack:

* ``btn_push`` (C, B, 2) [fold, push] and ``btn_draw`` (C, H+1, B, M) [class, big blind's draw count k,
  stack, mask], player 0; ``bb_call`` (C, B, 2) [fold, call] and ``bb_draw`` (C, B, M), player 1.

Discard mask bit j discards position j of the hand's canonical card order. Deals come from counter-based
streams (Philox keyed by the seed and the caller's key); a solve's deals walk each class's other hands in a
cycle (``cycle``) and draw several stubs (``stubs``). The deal loops are compiled
(:mod:`distcfr.engine.draw27_compiled`): ``class_sums`` sums a hand class's deals in order, so a class's
sums depend only on its own deals, whatever else shares the call, and a run is the same on any number of
workers; ``deal_values`` gives payoffs per deal (simulated matches, the exploitability bracket). The
vectorised showdown signs (``showdown_matrix``) and the per-deal products in tests/reference_sampled.py
are the reference the tests hold them to. The same strategy in the exact game is ``to_exact``.
"""

from __future__ import annotations

import numpy as np

from distcfr import cards
from distcfr.cards import CARD_KEYS, rank_of_keys
from distcfr.engine import draw27_compiled as compiled
from distcfr.engine.calibration import BRACKET_DEAL_COST
from distcfr.engine.layout import Layout
from distcfr.engine.lowball_deals import LowballDeals
from distcfr.engine.row_table import rows_of
from distcfr.engine.sampled_kernel import ClassTotals, StrategyTable
from distcfr.errors import BadParameter
from distcfr.games.draw27 import Draw27

_WORK = np.float32  # sigma gathers and per-deal products; class sums are float64
MAX_STACK = 1e6  # BB: values, products and sums of many deals stay far inside float32's range
_GATHER_BYTES = 1 << 24  # the other player's strategy rows a compiled class-sums call copies at most
STUBS = 8  # stubs drawn per pair of hands in a training deal (see SampledDraw27.stubs)
CYCLE = True  # training deals walk each class's other hands in a cycle (see SampledDraw27.cycle)
SPREAD = True  # a training deal's further stubs are its first turned round the deck (see SampledDraw27.spread)


class SampledDraw27(LowballDeals):
    """Sampled draw27 of a ``ranks`` x ``suits`` deck, ``hand`` cards each, one table column per stack."""

    def __init__(self, ranks: int = 13, suits: int = 4, hand: int = 5, stacks=(3.0,)):
        super().__init__(ranks, suits, hand)
        self.stacks = np.asarray(stacks, dtype=np.float64).reshape(-1)  # (B,)
        if self.stacks.max() > MAX_STACK:
            raise BadParameter(f"stack {self.stacks.max():g} BB is beyond what the sampled kernel computes (float32 "
                               f"values): at most {MAX_STACK:g} BB")
        h, m, b = hand, 1 << hand, len(self.stacks)
        self.n_masks = m
        self.strategy_tables = (StrategyTable("btn_push", 0, (b, 2), 2), StrategyTable("btn_draw", 0, (h + 1, b, m), m),
                                StrategyTable("bb_call", 1, (b, 2), 2), StrategyTable("bb_draw", 1, (b, m), m))
        self.mask_size = np.array([bin(x).count("1") for x in range(m)])  # (M,) cards drawn per mask
        self.keep = ((np.arange(m)[None, :] >> np.arange(h)[:, None]) & 1 == 0).astype(np.int32)  # (H, M)
        self.order = np.argsort(self.mask_size, kind="stable")  # (M,) masks by draw count: groups k = 0..H
        ends = np.cumsum(np.bincount(self.mask_size))
        self.bounds = list(zip(ends - np.bincount(self.mask_size), ends))  # [lo, hi) of each group k
        self.low_bit = np.array([(x & -x).bit_length() - 1 for x in range(m)])  # (M,) lowest discarded position
        self.stubs = STUBS  # per training deal: the stub is most of a deal's noise, a small part of its cost
        self.cycle = CYCLE  # a class's training deals meet the other hands in a cycle, spread over their strength
        self.spread = SPREAD  # and a deal's stubs are spread over the deck's ranks (with the cycle)

    def _rank_args(self) -> tuple:
        """(card keys, rank table, flush offsets, mask sizes, lowest discarded positions): what the
        compiled loops look final hands' ranks up with, the same for every call."""
        return (CARD_KEYS.astype(np.int64), *cards._get_tables(), self.mask_size, self.low_bit)

    # per player, the tables a best response sets, in order: the draws first (from summed counterfactual
    # values), then push or call given the chosen draws
    response_order = (("btn_draw", "btn_push"), ("bb_draw", "bb_call"))
    refines = True  # the bracket's close classes choose their response again (distcfr.engine.sampled_bracket)
    batch_per_class = 8  # the default batch's deals per hand class (distcfr.solve.sampled_solver.default_batch)
    bracket_deal_cost = BRACKET_DEAL_COST  # training deals a bracket's drawn deal costs

    def best_response(self, profile: dict, deals: np.ndarray, player: int) -> None:
        """The player's best response on ``deals`` (grouped by its class) in ``profile``, class by class."""
        from distcfr.engine.sampled_bracket import class_best_response

        class_best_response(self, profile, deals, player)

    def responder_keys(self, sigma: dict, player: int) -> dict:
        """No key tables: a best response holds class rows only."""
        return {}

    def response_bytes(self, per_class: int) -> int:
        """Bytes a class's best response holds: a float16 copy of the responder's rows (the larger player's)."""
        return max(sum(int(np.prod(b.shape)) * 2 for b in self.strategy_tables if b.player == p) for p in (0, 1))

    def to_exact(self, tables: dict[str, np.ndarray]):
        """(layout, probs): these class tables as a table of the exact game (:func:`to_exact_strategy`)."""
        return to_exact_strategy(self, tables)

    def _columns(self, deals: np.ndarray, known: tuple[int, np.ndarray] | None = None,
                 other: tuple | None = None):
        """Classes and canonical orders of both hands: (c1, c2 (D,), can1, can2 (H, D), stubs (2H S, D)).
        ``known`` = (player, (D,) classes): that player's hands are those classes' representatives,
        whose canonical order is ascending card id (as drawn by :meth:`sample_class_deals`): not
        classified again; nor are the other player's with ``other`` (:meth:`other_classes`)."""
        cols = np.ascontiguousarray(np.asarray(deals, dtype=np.int32).T)  # (4H, D)
        h = self.hand
        hands = [cols[:h], cols[h:2 * h]]
        found = [self._classify(hands[u]) for u in (0, 1)] if known is None else [None, None]
        if known is not None:
            mine = known[0]
            found[mine] = known[1], hands[mine]
            found[1 - mine] = other if other is not None else self._classify(hands[1 - mine])
        (c1, can1), (c2, can2) = found
        return c1, c2, can1, can2, cols[2 * h:]

    def _showdown(self, can1, can2, stub) -> np.ndarray:
        """(D, M, M) float32 Wt[deal, big blind mask in draw-count order (``self.order``), button mask]:
        +1 when the button's final hand is lower (wins), 0 on a tie, -1 when it loses."""
        h = self.hand
        kept1 = self.keep.T @ CARD_KEYS.take(can1)  # (M, D) int32 key of the kept cards per mask
        kept2 = self.keep.T[self.order] @ CARD_KEYS.take(can2)  # (M, D) big blind masks in draw-count order
        prefix = np.zeros((2 * h + 1, stub.shape[1]), dtype=np.int32)  # (2H+1, D) keys of stub[0:i]
        np.cumsum(CARD_KEYS.take(stub), axis=0, out=prefix[1:])
        rank2 = rank_of_keys(kept2 + prefix[self.mask_size[self.order]], dtype=np.int16).T.copy()  # (D, M)
        k = np.arange(h + 1)[:, None]  # (H+1, 1): the big blind's draw count
        drawn1 = prefix[k + self.mask_size] - prefix[k[:, 0]][:, None]  # (H+1, M, D): stub[k:k+|m1|]
        rank1 = rank_of_keys(kept1 + drawn1, dtype=np.int16).transpose(2, 0, 1).copy()  # (D, H+1, M)
        diff = np.empty((stub.shape[1], self.n_masks, self.n_masks), dtype=np.int16)  # ranks < 2**13: no overflow
        for kk, (lo, hi) in enumerate(self.bounds):
            np.subtract(rank2[:, lo:hi, None], rank1[:, kk, None, :], out=diff[:, lo:hi])
        np.clip(diff, -1, 1, out=diff)  # the sign of integer differences
        return diff.astype(_WORK)

    def showdown_matrix(self, deals: np.ndarray) -> np.ndarray:
        """(D, M, M) int8 W[deal, m1 (button mask), m2 (big blind mask)]: +1 button wins, 0, -1."""
        _, _, can1, can2, stub = self._columns(deals)
        w = np.empty((stub.shape[1], self.n_masks, self.n_masks), dtype=np.int8)
        w[:, :, self.order] = self._showdown(can1, can2, stub).transpose(0, 2, 1)
        return w

    # ---- values -----------------------------------------------------------------------------------
    def class_sums(self, sigma: dict, deals: np.ndarray, player: int, counts: np.ndarray,
                   first: int | None = None, other: tuple | None = None, scratch=None) -> dict[str, ClassTotals]:
        """Batch sums of ``player``'s counterfactual action values and own reach per hand class, for
        deals grouped by that player's class (:meth:`sample_class_deals`: ``counts[i]`` deals of the
        i-th class present, in class order). The same sums as :meth:`cfr_values`, computed per
        class: a class's deals are one contraction (the deal and the other player's mask together),
        a batched matmul over the classes, so nothing per deal is stored. A class's sums depend only
        on its own deals, whatever else is in the call. Deals of several stubs
        (:meth:`sample_blocks_deals`) count the mean over a deal's stubs.

        With w2 = the big blind's reach times the stake per mask and Wt the showdown signs, per
        draw-count group k: the button's draw values X_k = sum_deals w2_k Wt_k, its push value
        sum_k d1_k . X_k + sum (1 - q); the big blind's draw values Q_k = -sum_deals (p stake d1_k) Wt_k,
        its call value d2 . Q. With ``first``, the player's hands are the representatives of classes
        first + i (as :meth:`sample_class_deals` draws them) and are not classified again; with
        ``other`` too (:meth:`other_classes` of these deals), neither are the other player's.
        ``scratch(key, shape)``, if given, hands out the float32 arrays the totals are written in
        (memory used before: a fresh page costs a fault per 4 KiB, more than writing it).
        """
        counts = np.asarray(counts)
        present = np.flatnonzero(counts)
        known = None if first is None else (player, np.repeat(np.arange(first, first + len(counts)), counts))
        c1, c2, can1, can2, stub = self._columns(deals, known, other)
        starts = np.concatenate([[0], np.cumsum(counts[present])])
        rows = (c1, c2)[player][starts[:-1]]  # (G,) each class present
        scratch = scratch or (lambda key, shape: np.empty(shape, _WORK))
        out = {b.name: ClassTotals(rows, scratch(b.name + ".q", (len(rows), *b.shape)),
                                   scratch(b.name + ".reach", (len(rows), b.shape[-2])))
               for b in self.strategy_tables if b.player == player}
        theirs = (c2, c1)[player]
        row_bytes = sum(4 * int(np.prod(b.shape)) for b in self.strategy_tables if b.player != player)
        step = max(1, _GATHER_BYTES // row_bytes)  # deals per call: the rows they face are copied
        lo = 0
        while lo < len(rows):
            hi = lo + max(1, int(np.searchsorted(starts, starts[lo] + step, side="right")) - 1 - lo)
            hi = min(hi, len(rows))
            cut = slice(int(starts[lo]), int(starts[hi]))
            for name, (q, reach) in self._compiled_values(sigma, rows[lo:hi], theirs[cut], can1[:, cut],
                                                          can2[:, cut], stub[:, cut], starts[lo:hi + 1] - starts[lo],
                                                          player).items():
                out[name].q[lo:hi], out[name].reach[lo:hi] = q, reach
            lo = hi
        return out

    def _compiled_values(self, sigma, mine, theirs, can1, can2, stub, starts, player: int) -> dict[str, tuple]:
        """{table: (q (G, *shape), reach (G, B))} of G classes ``mine`` of ``player``, class g's deals
        [starts[g], starts[g + 1]) (``theirs``: the other player's class per deal), by the compiled
        loops (:mod:`distcfr.engine.draw27_compiled`)."""
        faced, at = np.unique(theirs, return_inverse=True)
        n = np.diff(starts).astype(_WORK)[:, None]  # (G, 1) deals per class
        stacks = self.stacks.astype(_WORK)
        common = (stacks, *self._rank_args())
        if player == 0:
            p = rows_of(sigma["btn_push"], mine)[:, :, 1].astype(_WORK)  # (G, B)
            d1 = rows_of(sigma["btn_draw"], mine).astype(_WORK, copy=False)  # (G, H+1, B, M)
            call = np.ascontiguousarray(sigma["bb_call"][faced, :, 1], dtype=_WORK)  # (U, B)
            draw = np.ascontiguousarray(sigma["bb_draw"][faced], dtype=_WORK)  # (U, B, M)
            x, stay = compiled.button_sums(starts, can1, can2, stub, at, call, draw, *common)
            push = compiled.strategy_values(d1, x) + stay
            return {"btn_push": (np.stack([-0.5 * np.broadcast_to(n, push.shape), push], axis=-1),
                                 np.broadcast_to(n, push.shape).copy()),
                    "btn_draw": (x, n * p)}
        q = rows_of(sigma["bb_call"], mine)[:, :, 1].astype(_WORK)  # (G, B)
        d2 = rows_of(sigma["bb_draw"], mine).astype(_WORK, copy=False)  # (G, B, M)
        push = np.ascontiguousarray(sigma["btn_push"][faced, :, 1], dtype=_WORK)  # (U, B)
        draw = np.ascontiguousarray(sigma["btn_draw"][faced], dtype=_WORK)  # (U, H+1, B, M)
        values, fold = compiled.big_blind_sums(starts, can1, can2, stub, at, push, draw, *common)
        call = compiled.strategy_values(d2[:, None], values[:, None])
        return {"bb_call": (np.stack([fold, call], axis=-1), np.broadcast_to(n, call.shape).copy()),
                "bb_draw": (values, n * q)}

    def deal_values(self, sigma: dict[str, np.ndarray], deals: np.ndarray) -> np.ndarray:
        """(D, B) float64 button payoff of each deal when both players follow ``sigma`` (draws in
        expectation); a deal of several stubs (:meth:`sample_blocks_deals`) is worth the mean over
        its stubs, as in :meth:`class_sums`."""
        c1, c2, can1, can2, stub = self._columns(deals)
        out = np.zeros((len(c1), len(self.stacks)))
        row_bytes = sum(4 * int(np.prod(b.shape)) for b in self.strategy_tables)
        step = max(1, _GATHER_BYTES // row_bytes)  # deals per call: the rows they play are copied
        ranks = self._rank_args()
        width = 2 * self.hand  # one stub's cards
        n_stubs = stub.shape[0] // width
        for lo in range(0, len(c1), step):
            cut = slice(lo, lo + step)
            (btn, at1), (bb, at2) = (np.unique(c, return_inverse=True) for c in (c1[cut], c2[cut]))
            rows = [np.ascontiguousarray(sigma[name][ids], dtype=_WORK) for name, ids in
                    (("btn_push", btn), ("btn_draw", btn), ("bb_call", bb), ("bb_draw", bb))]
            for s in range(n_stubs):
                out[cut] += compiled.deal_values(at1, at2, can1[:, cut], can2[:, cut],
                                                 stub[s * width:(s + 1) * width, cut], rows[0][..., 1], rows[1],
                                                 rows[2][..., 1], rows[3], self.stacks, *ranks)
        out /= n_stubs  # exact for one stub
        return out


# ---- the same strategy in the exact game ------------------------------------------------------------
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

"""nl27: no-limit deuce-to-seven single draw, heads-up, with a betting abstraction (rules in
docs/GAMES.md): the game draw27 simplifies to push or fold.

Deck, hands, draw and hand order are draw27's. The button (player 1) posts 0.5 BB, the big blind
(player 2) 1 BB, both start with the stack S. A betting round before the draw (button first), the
draw (the big blind discards and draws first, the button sees how many cards it took, then draws;
the big blind sees the button's count), and a betting round after the draw (big blind first) unless
someone is all-in; then the lower hand wins the other's contribution.

The public tree holds the actions of every stack of a list: a raise a stack cannot make (its size
reaches the stack) is masked for that stack's variant (``variant_legal``), where the all-in stays.
Every amount but the all-in follows from the history alone, so one tree serves every stack.

Action codes: ``f`` fold, ``k`` check, ``c`` call (the button's limp included), ``a`` all-in,
``r<X>`` a raise to X in total before the draw (the open included) or to X in the round after it,
``b<X>`` the first bet after the draw (X into the round), ``d<m>`` a draw (m: draw27's mask
character; bit j of the mask discards the j-th lowest card), or with ``draw=rule`` ``n<k>`` a draw
of k cards (the hand's k worst discarded: ``nl27_abstraction.rule_masks``). A player's observation
joins the codes with ``-`` and shows the opponent's draw as ``n<count>``, and its own too where
the abstraction forgets the mask (``draw=rule``, or ``post`` other than ``recall``).
"""

from __future__ import annotations

import dataclasses
import math
from functools import cached_property

import numpy as np

from distcfr.errors import BadParameter
from distcfr.games.base import History
from distcfr.games.draw27 import MASK_CODES
from distcfr.games.lowball_deck import DeckParams, LowballDeckGame, stacks_field
from distcfr.games.nl27_abstraction import DRAWS, class_value_recall, draw_count, n_post_keys, parse_draw, parse_post

ALLIN = math.inf  # a contribution that is the whole stack, whatever the stack
MAX_EXACT_STATES = 12_000  # private states of one player after its draw, summed over the draw counts
SAMPLED_POST_BUCKETS = 1024  # the sampled solver's post-draw keys where the spec names none: the memory of a stack list
MAX_EXACT_CELLS = 1.5e8  # table cells (infosets x actions x stacks) the exact solver holds
SECONDS_PER_MATRIX_CELL = 4e-8  # one iteration's time per showdown-matrix cell (bench/nl27_speed.py, the 2-card decks)


def parse_sizes(text: str) -> tuple[float, ...]:
    """``"2.5/4"`` -> (2.5, 4.0); ``"none"`` -> (); one number -> a one-element list."""
    if text.strip().lower() == "none":
        return ()
    try:
        sizes = tuple(float(part) for part in text.split("/"))
    except ValueError:
        raise ValueError("write a list of numbers separated by '/' (2.5/4), or none") from None
    if not all(math.isfinite(x) for x in sizes):
        raise ValueError("sizes must be finite")
    return tuple(dict.fromkeys(sizes))  # equal sizes are offered once


def _size(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:.3g} GB"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"about {seconds:.2g} s"
    if seconds < 3 * 86400:
        return f"about {seconds / 3600:.2g} hours"
    return f"about {seconds / 86400 / 365:.2g} years"


def parse_limp(text: str) -> int:
    if text.strip() not in ("0", "1"):
        raise ValueError("limp is 0 (the button may not limp) or 1 (it may)")
    return int(text)


def _format_sizes(sizes: tuple) -> str:
    return "/".join(f"{x:g}" for x in sizes) if sizes else "none"


def _amount(x: float) -> str:
    return f"{x:g}"


@dataclasses.dataclass
class Betting:
    """The public state after a history: who acts, what each player has put in, the round."""

    phase: str = "pre"  # pre, draw, post, fold, showdown
    to_act: int = 0
    contrib: list = dataclasses.field(default_factory=lambda: [0.5, 1.0])  # button, big blind; ALLIN = the stack
    round_start: float = 0.0  # both players' contribution when the post-draw round began
    raises: int = 0  # raises (bets, all-ins) made in this round
    acted: list = dataclasses.field(default_factory=lambda: [False, False])  # since the last raise
    folder: int = -1
    draws: list = dataclasses.field(default_factory=list)  # draw codes in order (big blind's first)

    @property
    def facing(self) -> bool:
        return self.contrib[1 - self.to_act] > self.contrib[self.to_act]

    @property
    def all_in(self) -> bool:
        return ALLIN in self.contrib


class Nl27(LowballDeckGame):
    name = "nl27"
    default_algorithm = "dcfr"  # the fastest rule to small exploitability here (python -m distcfr.compare)
    default_target = 1e-5
    unit = "BB"
    seats = ("button", "big blind")
    exact_form = "ranges"

    @dataclasses.dataclass(frozen=True)
    class Params(DeckParams):
        """nl27's: the deck, the hand size, the stacks (10 BB by default), the betting and the abstractions."""

        stacks: tuple = stacks_field(10.0)
        open: tuple = dataclasses.field(default=(2.5,), metadata={"parse": parse_sizes, "format": _format_sizes})
        limp: int = dataclasses.field(default=1, metadata={"parse": parse_limp})
        raise_: float = dataclasses.field(default=3.0, metadata={"key": "raise"})
        bet: tuple = dataclasses.field(default=(0.5, 1.0), metadata={"parse": parse_sizes, "format": _format_sizes})
        cap: int = 3
        draw: str = dataclasses.field(default="all", metadata={"parse": parse_draw})
        post: str = dataclasses.field(default="recall", metadata={"parse": parse_post})

    def validate(self) -> None:
        p = self.params
        self.validate_deck()
        if min(p.stacks) <= 1:
            raise BadParameter(f"nl27 stack {min(p.stacks):g} must be more than the big blind (1)")
        if p.open and min(p.open) < 2:
            raise BadParameter(f"nl27 open size {min(p.open):g} is below the minimum raise (to 2 BB)")
        if p.limp not in (0, 1):
            raise BadParameter(f"nl27 limp is 0 or 1, got {p.limp}")
        if not p.raise_ >= 2:
            raise BadParameter(f"nl27 raise must be at least 2 (a raise at least doubles the bet), got {p.raise_:g}")
        if not math.isfinite(p.raise_):
            raise BadParameter("nl27 raise must be finite")
        if p.bet and min(p.bet) <= 0:
            raise BadParameter(f"nl27 bet fractions must be above 0, got {min(p.bet):g}")
        if not 1 <= p.cap <= 20:
            raise BadParameter(f"nl27 cap (raises per round) must be between 1 and 20, got {p.cap}")
        if p.draw not in DRAWS:
            raise BadParameter(f"nl27 draw is all or rule, got {p.draw!r}")
        try:
            post = parse_post(str(p.post))
        except ValueError as err:
            raise BadParameter(f"nl27 {err}, got {p.post!r}") from None
        if post != p.post:
            raise BadParameter(f"nl27 post is written {post!r}, got {p.post!r}")

    # ---- sizes --------------------------------------------------------------------------------
    @cached_property
    def n_hands(self) -> int:
        return math.comb(self.params.ranks * self.params.suits, self.params.hand)

    def received_per_hand(self, k: int) -> int:
        """How many sets of k cards a player can receive for one hand (from the cards not in it)."""
        n, h = self.params.ranks * self.params.suits, self.params.hand
        return math.comb(n - h, k)

    def states_after_draw(self, k: int) -> int:
        """A player's private states after discarding k cards: (hand, received cards)."""
        return self.n_hands * self.received_per_hand(k)

    def draws_of_count(self, k: int) -> int:
        """How many draw actions discard k cards: every k-card mask, or the rule's one count."""
        return 1 if self.params.draw == "rule" else math.comb(self.params.hand, k)

    def sampled_form(self) -> Nl27:
        """The game the sampled solver takes: this one where it names both abstractions (draw=rule and a
        post-draw key), else the same with what is missing: draw=rule; perfect recall after the draw
        kept where a class and its final value say all a player knows and their keys are few (at most
        SAMPLED_POST_BUCKETS), else post=value, or value buckets where the deck's hands take more values."""
        p = self.params
        post = p.post
        if post == "recall":
            values = n_post_keys("value", self.deck, p.hand)
            if not (class_value_recall(p.suits, p.hand) and self.n_hands * values <= SAMPLED_POST_BUCKETS):
                post = "value" if values <= SAMPLED_POST_BUCKETS else str(SAMPLED_POST_BUCKETS)
        if (p.draw, post) == (p.draw, p.post) and p.draw == "rule":
            return self
        game = type(self)(dataclasses.replace(p, draw="rule", post=post))
        game.validate()
        return game

    @property
    def n_deals(self) -> int:
        """The exact solver's shards cut the button's starting hands."""
        return self.n_hands

    @property
    def default_shards(self) -> int:
        return 1

    def exact_size_problem(self) -> str | None:
        h = self.params.hand
        states = sum(self.draws_of_count(k) * self.states_after_draw(k) for k in range(h + 1))
        p = self.params
        deck = f"nl27 with {p.ranks} ranks, {p.suits} suits, {h} cards"
        if states > MAX_EXACT_STATES:
            pairs = sum(self.draws_of_count(k0) * self.draws_of_count(k1)
                        * self.states_after_draw(k0) * self.states_after_draw(k1)
                        for k0 in range(h + 1) for k1 in range(h + 1))
            return (f"{deck} has {states:,} private states a player after the draw, more than the "
                    f"{MAX_EXACT_STATES:,} the exact solver takes: its showdown matrices alone would need "
                    f"{_size(pairs * 8)} and each iteration {_duration(pairs * SECONDS_PER_MATRIX_CELL)}")
        cells = self.table_cells()
        if cells > MAX_EXACT_CELLS:
            return (f"{deck} and {len(p.stacks)} stacks has {cells:,.0f} table cells, more than the "
                    f"{MAX_EXACT_CELLS:,.0f} the exact solver takes (its tables would need {_size(cells * 8 * 7)}); "
                    "solve fewer stacks at once")
        return None

    def table_cells(self) -> int:
        """Infosets x actions x stacks of the exact solver's tables, counted from the public tree."""
        tree, cells, seen = self.tree, 0, set()
        for node in np.flatnonzero(tree.player >= 0):
            history, player = tree.histories[node], int(tree.player[node])
            key = (player, self.observation(history, player))
            if key not in seen:
                seen.add(key)
                cells += self.private_count(history, player)
        return cells * tree.max_actions * len(self.params.stacks)

    # ---- cards ----------------------------------------------------------------------------------
    # ---- rules ----------------------------------------------------------------------------------
    def replay(self, history: History) -> Betting:
        """The public state after ``history`` (a sequence of legal action codes)."""
        state = Betting()
        for code in history:
            self._apply(state, code)
        return state

    def _apply(self, state: Betting, code: str) -> None:
        p = state.to_act
        if state.phase == "draw":
            state.draws.append(code)
            if len(state.draws) == 1:
                state.to_act = 0
            elif state.all_in:
                state.phase = "showdown"
            else:
                state.phase, state.to_act, state.raises = "post", 1, 0
                state.round_start = state.contrib[0]
                state.acted = [False, False]
            return
        if code == "f":
            state.phase, state.folder = "fold", p
            return
        if code in ("k", "c"):
            state.contrib[p] = state.contrib[1 - p]
            state.acted[p] = True
        else:
            if code == "a":
                state.contrib[p] = ALLIN
            else:
                amount = float(code[1:])
                state.contrib[p] = amount if state.phase == "pre" else state.round_start + amount
            state.raises += 1
            state.acted = [False, False]
            state.acted[p] = True
        if all(state.acted) and state.contrib[0] == state.contrib[1]:
            state.phase, state.to_act = ("draw", 1) if state.phase == "pre" else ("showdown", -1)
        else:
            state.to_act = 1 - p

    def _options(self, history: History) -> list[tuple[str, str, float]]:
        """(code, label, the stack a size needs to exceed: 0 for actions every stack may take)."""
        state = self.replay(history)
        if state.phase in ("fold", "showdown"):
            return []
        if state.phase == "draw":
            h = self.params.hand
            if self.params.draw == "rule":
                return [(f"n{k}", f"draw {k}" if k else "stand pat", 0.0) for k in range(h + 1)]
            out = []
            for mask in range(2**h):
                drop = [str(j + 1) for j in range(h) if mask >> j & 1]
                out.append(("d" + MASK_CODES[mask], "discard " + ",".join(drop) if drop else "stand pat", 0.0))
            return out
        p, params = state.to_act, self.params
        mine, theirs = state.contrib[p], state.contrib[1 - p]
        out = []
        if state.facing:
            out.append(("f", "fold", 0.0))
            limp = state.phase == "pre" and not history
            if not limp or params.limp:
                out.append(("c", "limp" if limp else "call", 0.0))
        else:
            out.append(("k", "check", 0.0))
        if theirs == ALLIN or state.raises >= params.cap:
            return out
        top = max(mine, theirs)
        if state.phase == "pre":
            sizes = params.open if not history else (params.raise_ * top,)
            for x in sizes:
                if x > top:
                    out.append((f"r{_amount(x)}", f"{'open' if not history else 'raise to'} {_amount(x)}", x))
        else:
            start = state.round_start
            bet = top - start
            if bet == 0:
                for f in params.bet:
                    y = f * 2 * start
                    out.append((f"b{_amount(y)}", f"bet {_amount(y)}", start + y))
            else:
                y = params.raise_ * bet
                out.append((f"r{_amount(y)}", f"raise to {_amount(y)}", start + y))
        seen, kept = set(), []
        for code, label, needs in out:  # equal sizes are offered once; a size no stack can make is dropped
            if code not in seen and needs < max(params.stacks):
                seen.add(code)
                kept.append((code, label, needs))
        kept.append(("a", "all-in", 0.0))
        return kept

    def actions(self, history: History):
        return tuple((code, label) for code, label, _ in self._options(history))

    def variant_legal(self, history: History) -> np.ndarray:
        needs = np.array([n for _, _, n in self._options(history)])  # (n_actions,)
        return needs[None, :] < np.array(self.params.stacks)[:, None]  # (B, n_actions)

    def player(self, history: History) -> int:
        return self.replay(history).to_act

    def observation(self, history: History, player: int) -> str:
        shown = []
        seen_draws = 0
        keeps_mask = self.params.post == "recall"  # else its own draw is a count too
        for code in history:
            if code[0] in "dn":
                mover = 1 if seen_draws == 0 else 0
                seen_draws += 1
                if mover != player or not keeps_mask:
                    code = f"n{draw_count(code)}"
            shown.append(code)
        return "-".join(shown)

    def own_draw_code(self, history: History, player: int) -> str | None:
        """The draw code (``d<m>`` or ``n<k>``) ``player`` played in ``history``, None before its draw."""
        draws = [code for code in history if code[0] in "dn"]
        index = 0 if player == 1 else 1
        return draws[index] if len(draws) > index else None

    def own_draw(self, history: History, player: int) -> int | None:
        """The discard mask ``player`` chose in ``history`` (``draw=all``), None before its draw."""
        code = self.own_draw_code(history, player)
        if code is None:
            return None
        if code[0] != "d":
            raise ValueError(f"{code}: a draw of the rule is a count, its mask depends on the hand")
        return MASK_CODES.index(code[1])

    def own_count(self, history: History, player: int) -> int | None:
        """How many cards ``player`` drew in ``history``, None before its draw."""
        code = self.own_draw_code(history, player)
        return None if code is None else draw_count(code)

    def keyed(self, history: History, player: int) -> bool:
        """Whether ``player``'s decisions at ``history`` are keyed by its final hand's post key (past
        its draw, with ``post`` other than ``recall``) rather than by its private state."""
        return self.params.post != "recall" and self.own_draw_code(history, player) is not None

    def state_count(self, history: History, player: int) -> int:
        """``player``'s private states at ``history``: its hands, or (hand, received cards) past its draw."""
        k = self.own_count(history, player)
        return self.n_hands if k is None else self.states_after_draw(k)

    def private_count(self, history: History, player: int) -> int:
        """Rows of ``player``'s information sets at ``history``: its states, or the post keys."""
        if self.keyed(history, player):
            return len(self.private_labels(history, player))
        return self.state_count(history, player)

    def private_labels(self, history: History, player: int):
        from distcfr.games.nl27_cards import Nl27Cards

        k = self.own_count(history, player)
        cards = Nl27Cards.of(self)
        if k is None:
            return cards.hand_labels
        if self.params.post != "recall":
            return cards.key_space(self.params.post)[1]
        return cards.post_labels(k)

    def terminal_payoff(self, history: History) -> tuple[str, np.ndarray]:
        """("fold" or "showdown", (B,) the button's payoff: what the folder loses, or what the lower
        hand wins at showdown)."""
        state = self.replay(history)
        stacks = np.array(self.params.stacks)
        c0, c1 = (np.full(len(stacks), x) if x != ALLIN else stacks for x in state.contrib)
        c0, c1 = np.minimum(c0, stacks), np.minimum(c1, stacks)
        if state.phase == "fold":
            return "fold", (-c0 if state.folder == 0 else c1)
        return "showdown", c1.astype(float)

    def tables(self, strategy, variant: int) -> list:
        from distcfr.games.nl27_tables import strategy_tables

        return strategy_tables(self, strategy, variant)

    def summary_tables(self, strategy) -> list:
        from distcfr.games.nl27_tables import opening_summary

        return opening_summary(self, strategy)

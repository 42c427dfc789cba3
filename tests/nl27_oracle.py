"""An independent oracle for nl27 (no-limit deuce-to-seven single draw), written from the rules alone.

Plain Python, no import from ``distcfr``: the explicit game tree of one stack, its sequence form
and an exact solve by linear programming. Rules (docs/GAMES.md, nl27): blinds 0.5 / 1, both players
start with ``stack`` BB; a pre-draw betting round (button first); the big blind discards any subset
and draws that many from the stub, then the button (having seen that count) does the same; a
post-draw betting round (big blind first) unless someone is all-in; showdown, the lower hand wins.

The tree, built by :func:`build`:

1. chance deals (button hand, big blind hand): every ordered pair of disjoint hands, equally likely;
2. the pre-draw round; a fold ends the hand, both all-in skips the post-draw round;
3. the big blind picks a discard mask (one of 2^hand; bit i discards the i-th card of its sorted
   hand), chance gives it k1 cards of the stub (every k1-subset equally likely: the top of a
   shuffled stub), the button picks its mask seeing k1, chance gives it k0 of the rest;
4. the post-draw round, then showdown.

Information sets (perfect recall, checked while building): before the draw, own hand and the
actions; at the draw the big blind adds nothing, the button also sees k1; after the draw, own
hand, own mask, own received cards, k1, k0 and all the actions.

Exact values use the sequence form (Koller, Megiddo & von Stengel 1996): with the button's
realisation plan x (E x = e, x >= 0), the big blind's y (F y = f, y >= 0) and the chance-weighted
payoff matrix A (button's payoff), the value is max_x min_y x^T A y, the linear program
max f^T v s.t. E x = e, F^T v <= A^T x, x >= 0, solved by scipy's HiGHS; the big blind's
equilibrium plan is the program's dual. :func:`solve` returns both plans' exploitability as its
check. Best responses walk each player's information sets leaves first.

Cards are ints ``rank * suits + suit``, rank 0 the deuce; amounts are BB; payoffs the button's.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from itertools import combinations
from math import comb


@dataclass(frozen=True)
class Config:
    """One nl27 game at one stack; the betting abstraction as in docs/GAMES.md."""

    ranks: int
    suits: int
    hand: int
    stack: float
    open: tuple = (2.5,)  # the button's open sizes (totals)
    limp: bool = True  # the button may call the big blind
    raise_: float = 3.0  # every other raise is to raise_ x the current bet
    bet: tuple = (0.5, 1.0)  # the first post-draw bet, as fractions of the pot
    cap: int = 3  # raises per round, all-in included

    def __post_init__(self) -> None:
        if self.ranks * self.suits < 4 * self.hand:
            raise ValueError(f"a deck of {self.ranks * self.suits} cards is too small for {self.hand}-card hands")
        if self.stack <= 1:
            raise ValueError("the stack must exceed the big blind")


# --------------------------------------------------------------------------- hand order


@cache
def lowball_key(cards: tuple[int, ...], suits: int) -> tuple:
    """Deuce-to-seven order: a smaller key is a better (lower) hand.

    Category (high card 0, pair 1, two pair 2, trips 3, straight 4, flush 5, full house 6,
    quads 7, straight flush 8; straights and flushes only with 5 cards, the ace always high),
    then the ranks grouped by count (largest group first) and high first.
    """
    ranks = [c // suits for c in cards]
    groups = sorted(Counter(ranks).items(), key=lambda rank_count: (-rank_count[1], -rank_count[0]))
    shape = tuple(n for _, n in groups)
    order = tuple(r for r, _ in groups)
    straight = len(cards) == 5 and shape == (1,) * 5 and order[0] - order[4] == 4
    flush = len(cards) == 5 and len({c % suits for c in cards}) == 1
    if straight and flush:
        category = 8
    elif shape[0] == 4:
        category = 7
    elif shape[:2] == (3, 2):
        category = 6
    elif flush:
        category = 5
    elif straight:
        category = 4
    elif shape[0] == 3:
        category = 3
    elif shape[:2] == (2, 2):
        category = 2
    else:
        category = 1 if shape[0] == 2 else 0
    return category, order


def showdown(cfg: Config, final: tuple[tuple[int, ...], tuple[int, ...]], contrib: tuple[float, float]) -> float:
    """The button's payoff at showdown: the lower hand wins the other's contribution, a tie 0."""
    key0, key1 = (lowball_key(tuple(sorted(h)), cfg.suits) for h in final)
    if key0 == key1:
        return 0.0
    return contrib[1] if key0 < key1 else -contrib[0]


# --------------------------------------------------------------------------- betting


@dataclass(frozen=True)
class Betting:
    """The public state of one betting round."""

    pre: bool  # the pre-draw round (else the post-draw one)
    contrib: tuple[float, float]  # (button, big blind) totals in BB
    start: float  # each player's contribution when the round began
    actor: int  # 0 button, 1 big blind
    raises: int = 0  # raises (bets and all-ins included) so far in this round
    acted: tuple[bool, bool] = (False, False)  # acted since the last raise
    actions: tuple[str, ...] = ()  # this round's actions
    folded: int | None = None  # the player who folded
    over: bool = False  # the round ended without a fold


PRE_DRAW = Betting(pre=True, contrib=(0.5, 1.0), start=0.0, actor=0)


def fold_payoff(b: Betting) -> float:
    """The button's payoff when a player folded: the folder loses what it put in."""
    return -b.contrib[0] if b.folded == 0 else b.contrib[1]


def post_draw(pre: Betting) -> Betting:
    """The post-draw round after the pre-draw round ``pre`` ended with both in and not all-in."""
    return Betting(pre=False, contrib=pre.contrib, start=pre.contrib[0], actor=1)


def raise_sizes(cfg: Config, b: Betting) -> list[float]:
    """The totals the actor may raise to, all-in excepted, each offered once, smallest first."""
    if b.raises >= cfg.cap:
        return []
    top = max(b.contrib)
    if b.pre:
        sizes = cfg.open if b.actor == 0 and not b.actions else (cfg.raise_ * top,)
    elif top == b.start:
        sizes = tuple(b.start + f * 2 * b.start for f in cfg.bet)  # the first bet: f x pot on top
    else:
        sizes = (b.start + cfg.raise_ * (top - b.start),)  # raise_ x this round's bet, on top
    return sorted({x for x in sizes if top < x < cfg.stack})


@cache
def legal(cfg: Config, b: Betting) -> tuple[tuple[str, Betting], ...]:
    """(label, next state) of every action of the actor at ``b`` (not over, nobody folded)."""
    p, top = b.actor, max(b.contrib)
    out = []
    if b.contrib[p] < top:
        out.append(("f", replace(b, folded=p, actions=b.actions + ("f",))))
        limp = b.pre and p == 0 and not b.actions
        if cfg.limp or not limp:
            out.append(("c", _level(b, "c")))
    else:
        out.append(("k", _level(b, "k")))
    for x in raise_sizes(cfg, b):
        out.append((f"r{x:g}", _raise(b, f"r{x:g}", x)))
    if b.raises < cfg.cap and top < cfg.stack:
        out.append(("a", _raise(b, "a", cfg.stack)))
    return tuple(out)


def _level(b: Betting, label: str) -> Betting:
    """A check or call: the actor matches the top contribution; the round may end."""
    p, top = b.actor, max(b.contrib)
    contrib = (top, b.contrib[1]) if p == 0 else (b.contrib[0], top)
    acted = (True, b.acted[1]) if p == 0 else (b.acted[0], True)
    return replace(b, contrib=contrib, acted=acted, actor=1 - p, actions=b.actions + (label,),
                   over=all(acted) and contrib[0] == contrib[1])


def _raise(b: Betting, label: str, total: float) -> Betting:
    p = b.actor
    contrib = (total, b.contrib[1]) if p == 0 else (b.contrib[0], total)
    acted = (True, False) if p == 0 else (False, True)
    return replace(b, contrib=contrib, acted=acted, actor=1 - p, raises=b.raises + 1, actions=b.actions + (label,))


def end_of(cfg: Config, b: Betting) -> str | None:
    """How a pre-draw line ends: "fold", "allin" (both all-in), "draw", or None while it goes on."""
    if b.folded is not None:
        return "fold"
    if b.over:
        return "allin" if b.contrib[0] == cfg.stack else "draw"
    return None


def public_lines(cfg: Config) -> list[tuple[tuple[str, ...], tuple[float, float], str]]:
    """Every pre-draw line: (actions, (button, big blind) contributions, "fold" | "draw" | "allin")."""
    lines = []

    def walk(b: Betting) -> None:
        end = end_of(cfg, b)
        if end is not None:
            lines.append((b.actions, b.contrib, end))
            return
        for _, nxt in legal(cfg, b):
            walk(nxt)

    walk(PRE_DRAW)
    return lines


# --------------------------------------------------------------------------- the sequence form


class SequenceForm:
    """Both players' information sets and sequences, and the payoff matrix A.

    Per player, sequence 0 is the empty sequence; an information set's actions are consecutive
    sequences ``first[i] .. first[i] + n_actions[i] - 1``; infosets are numbered in the order the
    depth-first walk meets them, so an infoset comes after the one holding its parent sequence.
    """

    def __init__(self) -> None:
        self.index: tuple[dict, dict] = ({}, {})  # infoset key -> infoset number
        self.keys: tuple[list, list] = ([], [])  # infoset number -> key
        self.parent: tuple[list[int], list[int]] = ([], [])  # infoset -> parent sequence
        self.first: tuple[list[int], list[int]] = ([], [])  # infoset -> its first sequence
        self.n_actions: tuple[list[int], list[int]] = ([], [])
        self.n_seqs = [1, 1]
        self.payoff: dict[tuple[int, int], float] = defaultdict(float)  # (seq0, seq1) -> chance-weighted payoff

    def decide(self, player: int, key, parent: int, n: int) -> range:
        """The sequences of ``player``'s infoset ``key`` reached after its sequence ``parent``."""
        i = self.index[player].get(key)
        if i is None:
            i = self.index[player][key] = len(self.parent[player])
            self.keys[player].append(key)
            self.parent[player].append(parent)
            self.first[player].append(self.n_seqs[player])
            self.n_actions[player].append(n)
            self.n_seqs[player] += n
        elif self.parent[player][i] != parent or self.n_actions[player][i] != n:
            raise AssertionError(f"imperfect recall at {key!r}")
        first = self.first[player][i]
        return range(first, first + n)

    def add(self, seqs: tuple[int, int], prob: float, payoff: float) -> None:
        self.payoff[seqs] += prob * payoff

    def plan(self, player: int, policy) -> list[float]:
        """The realisation plan of ``policy(player, key, n) -> n action probabilities``."""
        plan = [1.0] + [0.0] * (self.n_seqs[player] - 1)
        for key, parent, first, n in zip(self.keys[player], self.parent[player], self.first[player],
                                         self.n_actions[player]):
            for s, prob in zip(range(first, first + n), policy(player, key, n), strict=True):
                plan[s] = plan[parent] * prob
        return plan

    def best_response(self, player: int, opponent_plan: list[float]) -> float:
        """``player``'s best payoff (its own sign) against the opponent's realisation plan."""
        gain = [0.0] * self.n_seqs[player]  # payoff of each own sequence's terminal pairs
        for (s0, s1), u in self.payoff.items():
            if player == 0:
                gain[s0] += u * opponent_plan[s1]
            else:
                gain[s1] -= u * opponent_plan[s0]
        below = [0.0] * self.n_seqs[player]  # best value of the infosets right after a sequence
        for i in reversed(range(len(self.parent[player]))):
            first, n = self.first[player][i], self.n_actions[player][i]
            below[self.parent[player][i]] += max(gain[s] + below[s] for s in range(first, first + n))
        return gain[0] + below[0]

    def plan_error(self, player: int, plan: list[float]) -> float:
        """How far ``plan`` is from a realisation plan: the largest |sum of actions - parent|."""
        error = abs(plan[0] - 1.0)
        for parent, first, n in zip(self.parent[player], self.first[player], self.n_actions[player]):
            error = max(error, abs(sum(plan[first:first + n]) - plan[parent]))
        return error

    def value(self, plan0: list[float], plan1: list[float]) -> float:
        """The button's expected payoff when the players follow these realisation plans."""
        return sum(u * plan0[s0] * plan1[s1] for (s0, s1), u in self.payoff.items())


@lru_cache(maxsize=4)
def build(cfg: Config) -> SequenceForm:
    """Walk the whole game tree of ``cfg`` once, recording infosets and the payoff matrix (cached:
    callers only read it)."""
    sf = SequenceForm()
    hands = list(combinations(range(cfg.ranks * cfg.suits), cfg.hand))
    deals = [(h0, h1) for h0 in hands for h1 in hands if not set(h0) & set(h1)]
    for deal in deals:
        private = (("pre", deal[0]), ("pre", deal[1]))
        _round(sf, cfg, PRE_DRAW, private, (0, 0), 1.0 / len(deals),
               lambda b, seqs, prob, deal=deal: _draw(sf, cfg, deal, b, seqs, prob))
    return sf


def _round(sf: SequenceForm, cfg: Config, b: Betting, private, seqs, prob: float, finish) -> None:
    """Walk a betting round; ``private[p]`` is what player p knows besides this round's actions;
    ``finish(b, seqs, prob)`` continues where the round ends without a fold."""
    if b.folded is not None:
        sf.add(seqs, prob, fold_payoff(b))
        return
    if b.over:
        finish(b, seqs, prob)
        return
    p = b.actor
    options = legal(cfg, b)
    for seq, (_, nxt) in zip(sf.decide(p, (private[p], b.actions), seqs[p], len(options)), options):
        _round(sf, cfg, nxt, private, (seq, seqs[1]) if p == 0 else (seqs[0], seq), prob, finish)


def _split(hand: tuple[int, ...], mask: int) -> tuple[tuple[int, ...], int]:
    """(kept cards, number discarded) of discard ``mask`` (bit i: the i-th card of the hand)."""
    kept = tuple(c for i, c in enumerate(hand) if not mask >> i & 1)
    return kept, len(hand) - len(kept)


def _draw(sf: SequenceForm, cfg: Config, deal, pre: Betting, seqs, prob: float) -> None:
    """The draw after the pre-draw round ``pre``, then the post-draw round or the showdown."""
    h0, h1 = deal
    stub = [c for c in range(cfg.ranks * cfg.suits) if c not in h0 and c not in h1]
    masks = range(2 ** cfg.hand)
    line = pre.actions
    for m1, s1 in zip(masks, sf.decide(1, ("draw", h1, line), seqs[1], len(masks))):
        kept1, k1 = _split(h1, m1)
        for got1 in combinations(stub, k1):
            prob1 = prob / comb(len(stub), k1)
            rest = [c for c in stub if c not in got1]
            for m0, s0 in zip(masks, sf.decide(0, ("draw", h0, line, k1), seqs[0], len(masks))):
                kept0, k0 = _split(h0, m0)
                for got0 in combinations(rest, k0):
                    prob0 = prob1 / comb(len(rest), k0)
                    final = (kept0 + got0, kept1 + got1)
                    if pre.contrib[0] == cfg.stack:  # both all-in: straight to showdown
                        sf.add((s0, s1), prob0, showdown(cfg, final, pre.contrib))
                        continue
                    private = (("post", h0, m0, got0, k1, k0, line), ("post", h1, m1, got1, k1, k0, line))
                    _round(sf, cfg, post_draw(pre), private, (s0, s1), prob0,
                           lambda b, seqs, prob, final=final: sf.add(seqs, prob, showdown(cfg, final, b.contrib)))


# --------------------------------------------------------------------------- values


def uniform_values(cfg: Config) -> dict[str, float]:
    """Exact values of the profile where both players pick uniformly among their legal actions:
    the button's payoff, the button's best response to the uniform big blind, and the big
    blind's best response (its own payoff) to the uniform button."""
    return policy_values(cfg, lambda player, key, n: [1.0 / n] * n)


def policy_values(cfg: Config, policy) -> dict[str, float]:
    """Exact values of the profile ``policy(player, key, n) -> n action probabilities``: the
    button's payoff ("value") and each player's best response to the other's policy
    ("br_button", "br_big_blind", each in its own payoff). An infoset's key is
    (("pre", hand) or ("post", hand, mask, received, k1, k0, pre-draw actions), this round's
    actions) at a bet, ("draw", hand, pre-draw actions) at the big blind's draw and
    ("draw", hand, pre-draw actions, k1) at the button's; mask m discards the cards of its set bits."""
    sf = build(cfg)
    plan0, plan1 = sf.plan(0, policy), sf.plan(1, policy)
    return {"value": sf.value(plan0, plan1), "br_button": sf.best_response(0, plan1),
            "br_big_blind": sf.best_response(1, plan0)}


@dataclass(frozen=True)
class Solution:
    value: float  # the button's equilibrium value (the linear program's optimum)
    exploitability: float  # (BR_button + BR_big_blind) / 2 of the program's primal and dual plans
    plan_error: float  # how far those plans are from realisation plans (both players, the larger)
    seconds: float


def solve(cfg: Config) -> Solution:
    """The sequence-form linear program of ``cfg`` solved by HiGHS, and its check."""
    import time

    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    t0 = time.perf_counter()
    sf = build(cfg)
    n0, n1 = sf.n_seqs
    m0, m1 = len(sf.parent[0]), len(sf.parent[1])
    # Variables: x (n0 button sequences, >= 0), then v (1 + m1, free): v[0] for the big blind's
    # empty sequence, v[1 + j] for its infoset j.
    eq_rows, eq_cols, eq_vals = [0], [0], [1.0]  # E x = e: x[empty] = 1, each infoset's actions sum to its parent
    for i, (parent, first, n) in enumerate(zip(sf.parent[0], sf.first[0], sf.n_actions[0])):
        eq_rows += [1 + i] * (n + 1)
        eq_cols += [parent] + list(range(first, first + n))
        eq_vals += [-1.0] + [1.0] * n
    # One row per big blind sequence s: (F^T v)[s] - (A^T x)[s] <= 0.
    ub_rows, ub_cols, ub_vals = [0], [n0], [1.0]
    for j, (parent, first, n) in enumerate(zip(sf.parent[1], sf.first[1], sf.n_actions[1])):
        ub_rows += [parent] + list(range(first, first + n))
        ub_cols += [n0 + 1 + j] * (n + 1)
        ub_vals += [-1.0] + [1.0] * n
    for (s0, s1), u in sf.payoff.items():
        ub_rows.append(s1)
        ub_cols.append(s0)
        ub_vals.append(-u)
    n_vars = n0 + 1 + m1
    a_eq = coo_matrix((eq_vals, (eq_rows, eq_cols)), shape=(1 + m0, n_vars)).tocsr()
    a_ub = coo_matrix((ub_vals, (ub_rows, ub_cols)), shape=(n1, n_vars)).tocsr()
    cost = np.zeros(n_vars)
    cost[n0] = -1.0  # maximise v[0]
    b_eq = np.zeros(1 + m0)
    b_eq[0] = 1.0
    bounds = [(0, None)] * n0 + [(None, None)] * (1 + m1)
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n1), A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs-ipm")
    if res.status != 0:
        raise RuntimeError(f"the linear program failed: {res.message}")
    x = [max(float(v), 0.0) for v in res.x[:n0]]
    y = [max(-float(v), 0.0) for v in res.ineqlin.marginals]  # the dual of the <= rows: the big blind's plan
    exploitability = (sf.best_response(0, y) + sf.best_response(1, x)) / 2
    plan_error = max(sf.plan_error(0, x), sf.plan_error(1, y))
    return Solution(-float(res.fun), exploitability, plan_error, time.perf_counter() - t0)


def game_value(cfg: Config) -> float:
    """The button's equilibrium value in BB, exact to the linear program's tolerance (about 1e-9)."""
    return solve(cfg).value

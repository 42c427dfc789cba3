"""A deliberately simple reference CFR, written independently of ``distcfr``.

This module is a test oracle: one Python recursion per history and per deal,
no numpy, no import from ``distcfr``. The vectorised engine must agree with it
to 1e-12. It covers Kuhn and Leduc poker (rules in ``docs/GAMES.md``), the
update rules cfr, cfr+, lcfr, dcfr and pcfr+ with simultaneous or alternating
updates, and an exact best response / exploitability.

One iteration t = 1, 2, ... for player p (``_cfr_pass`` then ``_update``):

1. Walk every deal's tree with the current strategies ``sigma``. At each of
   p's histories h in infoset I, with pi_c the deal probability, pi_p / pi_-p
   the players' reaches under sigma and u_p(h) = sum_a sigma(a) u_p(ha):
   r(I, a) += pi_c pi_-p (u_p(ha) - u_p(h)) and s(I, a) += pi_c pi_p sigma(a).
2. Update p's tables, x = t - 1:
   R <- R * (pos where R > 0 else neg) + r, then R <- max(R, 0) if floored;
   S <- S * strat + s.

   ======  ==================  ==================  ============  =====
   rule    pos                 neg                 strat         floor
   ======  ==================  ==================  ============  =====
   cfr     1                   1                   1             no
   cfr+    1                   1                   x/t           yes
   lcfr    x/t                 x/t                 x/t           no
   dcfr    x^a/(x^a+1)         x^b/(x^b+1)         (x/t)^g       no
   pcfr+   1                   1                   (x/t)^2       yes
   ======  ==================  ==================  ============  =====

3. p's new current strategy is regret matching of R (of max(R + m, 0) for
   pcfr+, m being p's latest instantaneous regret r).

Simultaneous updates run step 1 for both players on sigma_t, then step 2 and 3
for both. Alternating updates run 1-3 for player 0, then for player 1 against
player 0's new strategy.

Papers: Zinkevich et al. 2007 (CFR); Tammelin 2014 (CFR+); Brown & Sandholm
2019 (LCFR, DCFR); Farina, Kroer & Sandholm 2021 (predictive CFR+).

Infoset labels are ``"<private>|<history>"``: Kuhn ``"K|pb"``; Leduc round 1
``"Q|rr"``, round 2 ``"<own rank>/<board rank>|<round 1>.<round 2>"`` such as
``"J/J|cc.r"``. Leduc suits never enter a label (only ranks do).
"""

from __future__ import annotations

import itertools
from functools import cache

Strategy = dict[str, list[float]]

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+")
UPDATES = ("simultaneous", "alternating")


# --------------------------------------------------------------------------- games


class Kuhn:
    """Kuhn poker, one history string of action codes 'p' (pass/fold) and 'b' (bet/call)."""

    name = "kuhn"
    ranks = "JQK"

    def __init__(self) -> None:
        # A deal is (P1 card, P2 card) as ranks 0..2; 6 ordered deals.
        self.deals = [(d, 1.0 / 6.0) for d in itertools.permutations(range(3), 2)]

    @staticmethod
    @cache
    def player(h: str) -> int | None:
        """The player to act at history h, or None when h is terminal."""
        if h in ("pp", "bp", "bb", "pbp", "pbb"):
            return None
        return len(h) % 2

    @staticmethod
    @cache
    def actions(h: str) -> tuple[str, ...]:
        return ("p", "b")

    @staticmethod
    @cache
    def action_names(h: str) -> tuple[str, ...]:
        return ("fold", "call") if h.endswith("b") else ("check", "bet")

    @staticmethod
    def child(h: str, a: str) -> str:
        return h + a

    def label(self, deal: tuple[int, ...], h: str) -> str:
        return f"{self.ranks[deal[len(h) % 2]]}|{h}"

    @staticmethod
    def utility(deal: tuple[int, ...], h: str) -> float:
        """Player 1's payoff in chips at terminal history h."""
        if h == "bp":
            return 1.0
        if h == "pbp":
            return -1.0
        stake = 1.0 if h == "pp" else 2.0
        return stake if deal[0] > deal[1] else -stake


class Leduc:
    """Leduc poker as OpenSpiel's ``leduc_poker``.

    A history is the label's history: round-1 codes, then ``"."`` once round 1
    is over, then round-2 codes; codes 'f' fold, 'c' call/check, 'r' raise/bet.
    A deal is (P1 card, P2 card, board card), cards 0..5, rank = card // 2.
    """

    name = "leduc"
    ranks = "JQK"
    raise_size = (2.0, 4.0)

    def __init__(self) -> None:
        self.deals = [(d, 1.0 / 120.0) for d in itertools.permutations(range(6), 3)]

    @staticmethod
    def _round(h: str) -> tuple[int, str]:
        """(round index, codes of the round so far)."""
        if "." in h:
            return 1, h.split(".", 1)[1]
        return 0, h

    @staticmethod
    @cache
    def player(h: str) -> int | None:
        if h.endswith("f"):
            return None
        rnd, codes = Leduc._round(h)
        if rnd == 1 and len(codes) >= 2 and codes[-1] == "c":
            return None  # round 2 closed by check-check or a call: showdown
        return len(codes) % 2

    @staticmethod
    @cache
    def actions(h: str) -> tuple[str, ...]:
        _, codes = Leduc._round(h)
        legal = []
        if codes.endswith("r"):
            legal.append("f")
        legal.append("c")
        if codes.count("r") < 2:
            legal.append("r")
        return tuple(legal)

    @staticmethod
    @cache
    def action_names(h: str) -> tuple[str, ...]:
        _, codes = Leduc._round(h)
        facing = codes.endswith("r")
        names = {"f": "fold", "c": "call" if facing else "check", "r": "raise" if facing else "bet"}
        return tuple(names[a] for a in Leduc.actions(h))

    @staticmethod
    @cache
    def child(h: str, a: str) -> str:
        rnd, codes = Leduc._round(h)
        h2 = h + a
        # A 'c' that is not the round's first action closes the round
        # (check-check, or a call of a bet/raise).
        if rnd == 0 and a == "c" and len(codes) >= 1:
            h2 += "."
        return h2

    def label(self, deal: tuple[int, ...], h: str) -> str:
        rnd, codes = self._round(h)
        own = self.ranks[deal[len(codes) % 2] // 2]
        if rnd == 0:
            return f"{own}|{h}"
        return f"{own}/{self.ranks[deal[2] // 2]}|{h}"

    @staticmethod
    @cache
    def _contributions(h: str) -> tuple[tuple[float, float], int | None]:
        """Chips each player has put in at terminal h, and who folded (or None)."""
        put = [1.0, 1.0]
        for rnd, codes in enumerate(h.split(".")):
            for i, a in enumerate(codes):
                me = i % 2
                if a == "f":
                    return (put[0], put[1]), me
                if a == "c":
                    put[me] = put[1 - me]
                elif a == "r":
                    put[me] = put[1 - me] + Leduc.raise_size[rnd]
        return (put[0], put[1]), None

    @staticmethod
    def utility(deal: tuple[int, ...], h: str) -> float:
        (put0, put1), folder = Leduc._contributions(h)
        if folder == 0:
            return -put0
        if folder == 1:
            return put1
        assert put0 == put1
        r0, r1, rb = deal[0] // 2, deal[1] // 2, deal[2] // 2
        if r0 == rb:
            return put0
        if r1 == rb:
            return -put0
        if r0 == r1:
            return 0.0
        return put0 if r0 > r1 else -put0


GAMES = {"kuhn": Kuhn, "leduc": Leduc}


@cache
def load(game_name: str) -> Kuhn | Leduc:
    return GAMES[game_name]()


@cache
def infosets(game_name: str) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Every infoset label -> (player to act, action names in action order)."""
    game = load(game_name)
    out: dict[str, tuple[int, tuple[str, ...]]] = {}

    def walk(deal: tuple[int, ...], h: str) -> None:
        p = game.player(h)
        if p is None:
            return
        out.setdefault(game.label(deal, h), (p, game.action_names(h)))
        for a in game.actions(h):
            walk(deal, game.child(h, a))

    for deal, _ in game.deals:
        walk(deal, "")
    return out


def uniform_strategy(game_name: str) -> Strategy:
    return {lab: [1.0 / len(names)] * len(names) for lab, (_, names) in infosets(game_name).items()}


def first_action_strategy(game_name: str) -> Strategy:
    return {lab: [1.0] + [0.0] * (len(names) - 1) for lab, (_, names) in infosets(game_name).items()}


# ----------------------------------------------------------------------------- CFR


def regret_matching(values: list[float]) -> list[float]:
    """Positive parts normalised; uniform when no value is positive."""
    pos = [max(0.0, v) for v in values]
    total = sum(pos)
    if total > 0.0:
        return [v / total for v in pos]
    return [1.0 / len(values)] * len(values)


def _cfr_pass(game, sigma: Strategy, p: int) -> tuple[Strategy, Strategy]:
    """Instantaneous regrets r and strategy-sum contributions s of player p under sigma."""
    labels = [lab for lab, (pl, _) in infosets(game.name).items() if pl == p]
    r = {lab: [0.0] * len(sigma[lab]) for lab in labels}
    s = {lab: [0.0] * len(sigma[lab]) for lab in labels}

    def walk(deal, h: str, chance: float, reach_p: float, reach_o: float) -> float:
        """Player p's expected utility at h under sigma (not weighted by reach)."""
        pl = game.player(h)
        if pl is None:
            u = game.utility(deal, h)
            return u if p == 0 else -u
        lab = game.label(deal, h)
        probs = sigma[lab]
        acts = game.actions(h)
        if pl != p:
            return sum(
                probs[i] * walk(deal, game.child(h, a), chance, reach_p, reach_o * probs[i])
                for i, a in enumerate(acts)
            )
        vals = [walk(deal, game.child(h, a), chance, reach_p * probs[i], reach_o) for i, a in enumerate(acts)]
        v = sum(probs[i] * vals[i] for i in range(len(acts)))
        ri, si = r[lab], s[lab]
        for i in range(len(acts)):
            ri[i] += chance * reach_o * (vals[i] - v)
            si[i] += chance * reach_p * probs[i]
        return v

    for deal, prob in game.deals:
        walk(deal, "", prob, 1.0, 1.0)
    return r, s


def discounts(algorithm: str, t: int, alpha: float, beta: float, gamma: float):
    """(pos, neg, strat, floor) for iteration t (1-based)."""
    x = t - 1
    if algorithm == "cfr":
        return 1.0, 1.0, 1.0, False
    if algorithm == "cfr+":
        return 1.0, 1.0, x / t, True
    if algorithm == "lcfr":
        return x / t, x / t, x / t, False
    if algorithm == "dcfr":
        xa, xb = float(x) ** alpha, float(x) ** beta
        return xa / (xa + 1.0), xb / (xb + 1.0), (x / t) ** gamma, False
    if algorithm == "pcfr+":
        return 1.0, 1.0, (x / t) ** 2, True
    raise ValueError(f"unknown algorithm {algorithm!r}")


class ReferenceSolver:
    """Plain tables keyed by infoset label; ``step()`` runs one iteration."""

    def __init__(
        self,
        game_name: str,
        algorithm: str = "cfr",
        updates: str = "alternating",
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float = 2.0,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        if updates not in UPDATES:
            raise ValueError(f"unknown updates {updates!r}")
        self.game = load(game_name)
        self.algorithm, self.updates = algorithm, updates
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.t = 0
        self.infosets = infosets(game_name)
        zeros = {lab: [0.0] * len(names) for lab, (_, names) in self.infosets.items()}
        self.regrets: Strategy = {k: list(v) for k, v in zeros.items()}
        self.strategy_sum: Strategy = {k: list(v) for k, v in zeros.items()}
        self.last_regret: Strategy = {k: list(v) for k, v in zeros.items()}  # m of pcfr+
        self.current: Strategy = uniform_strategy(game_name)

    def _current_of(self, lab: str) -> list[float]:
        if self.algorithm == "pcfr+":
            pred = [max(R + m, 0.0) for R, m in zip(self.regrets[lab], self.last_regret[lab], strict=True)]
            return regret_matching(pred)
        return regret_matching(self.regrets[lab])

    def _update(self, p: int, r: Strategy, s: Strategy) -> None:
        pos, neg, strat, floor = discounts(self.algorithm, self.t, self.alpha, self.beta, self.gamma)
        for lab in r:
            R, S = self.regrets[lab], self.strategy_sum[lab]
            for i in range(len(R)):
                R[i] = R[i] * (pos if R[i] > 0.0 else neg) + r[lab][i]
                if floor:
                    R[i] = max(R[i], 0.0)
                S[i] = S[i] * strat + s[lab][i]
            self.last_regret[lab] = list(r[lab])
        for lab in r:
            self.current[lab] = self._current_of(lab)

    def step(self) -> None:
        self.t += 1
        if self.updates == "simultaneous":
            sigma = {k: list(v) for k, v in self.current.items()}
            passes = [_cfr_pass(self.game, sigma, p) for p in (0, 1)]
            for p in (0, 1):
                self._update(p, *passes[p])
        else:
            for p in (0, 1):
                self._update(p, *_cfr_pass(self.game, self.current, p))

    def current_strategy(self) -> Strategy:
        return {k: list(v) for k, v in self.current.items()}

    def average_strategy(self) -> Strategy:
        out = {}
        for lab, S in self.strategy_sum.items():
            total = sum(S)
            out[lab] = [v / total for v in S] if total > 0.0 else [1.0 / len(S)] * len(S)
        return out


def run_reference(
    game_name: str,
    algorithm: str,
    updates: str,
    iterations: int,
    alpha: float = 1.5,
    beta: float = 0.0,
    gamma: float = 2.0,
) -> tuple[Strategy, Strategy]:
    """(current strategy, average strategy) after ``iterations`` iterations."""
    solver = ReferenceSolver(game_name, algorithm, updates, alpha, beta, gamma)
    for _ in range(iterations):
        solver.step()
    return solver.current_strategy(), solver.average_strategy()


# ------------------------------------------------------------ values and best response


def expected_value(game_name: str, strategy: Strategy) -> float:
    """Player 1's expected payoff in chips when both players play ``strategy``."""
    game = load(game_name)

    def walk(deal, h: str) -> float:
        if game.player(h) is None:
            return game.utility(deal, h)
        probs = strategy[game.label(deal, h)]
        return sum(probs[i] * walk(deal, game.child(h, a)) for i, a in enumerate(game.actions(h)))

    return sum(prob * walk(deal, "") for deal, prob in game.deals)


def best_response_value(game_name: str, strategy: Strategy, p: int) -> float:
    """Player p's value in chips of an exact best response to the opponent's ``strategy``.

    Each of p's infosets I gets one action: the argmax over a of
    sum_{h in I} pi_c(h) pi_-p(h) v(ha), where v plays the best response below.
    Infosets are decided lazily, each only after every infoset of p below it.
    """
    game = load(game_name)
    sign = 1.0 if p == 0 else -1.0
    # members[I] = [(deal, h, pi_c * pi_-p)] over p's histories h in I
    members: dict[str, list[tuple[tuple[int, ...], str, float]]] = {}

    def collect(deal, h: str, reach_o: float) -> None:
        pl = game.player(h)
        if pl is None:
            return
        if pl == p:
            members.setdefault(game.label(deal, h), []).append((deal, h, reach_o))
            for a in game.actions(h):
                collect(deal, game.child(h, a), reach_o)
        else:
            probs = strategy[game.label(deal, h)]
            for i, a in enumerate(game.actions(h)):
                collect(deal, game.child(h, a), reach_o * probs[i])

    for deal, prob in game.deals:
        collect(deal, "", prob)

    choice: dict[str, int] = {}
    memo: dict[tuple[tuple[int, ...], str], float] = {}

    def decide(lab: str) -> int:
        if lab not in choice:
            _, h0, _ = members[lab][0]
            acts = game.actions(h0)
            scores = [sum(w * value(deal, game.child(h, a)) for deal, h, w in members[lab]) for a in acts]
            choice[lab] = max(range(len(acts)), key=lambda i: (scores[i], -i))
        return choice[lab]

    def value(deal, h: str) -> float:
        key = (deal, h)
        if key in memo:
            return memo[key]
        pl = game.player(h)
        acts = game.actions(h) if pl is not None else ()
        if pl is None:
            v = sign * game.utility(deal, h)
        elif pl == p:
            v = value(deal, game.child(h, acts[decide(game.label(deal, h))]))
        else:
            probs = strategy[game.label(deal, h)]
            v = sum(probs[i] * value(deal, game.child(h, a)) for i, a in enumerate(acts))
        memo[key] = v
        return v

    return sum(prob * value(deal, "") for deal, prob in game.deals)


def exploitability(game_name: str, strategy: Strategy) -> tuple[float, float, float]:
    """(br value of player 1, br value of player 2, (br1 + br2) / 2), OpenSpiel's convention."""
    br0 = best_response_value(game_name, strategy, 0)
    br1 = best_response_value(game_name, strategy, 1)
    return br0, br1, (br0 + br1) / 2.0

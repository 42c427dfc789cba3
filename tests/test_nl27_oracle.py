"""The nl27 oracle (``nl27_oracle.py``, beside this file) checked on its own.

1. its push/fold special case (open=none, limp=0, bet=none, cap=1) equals draw27's exact solve, and
   its value and best responses of a draw27 strategy equal distcfr's evaluator's;
2. numbers worked out by hand (uniform values on the 4-card deck, pots of lines, the GAMES.md
   example), the uniform value of 1-card decks from the betting alone, and a fixed card-dependent
   policy's exact value against play from a shuffled deck (the deal and the stub played out);
3. its linear program's solutions are equilibria by its own best responses, on a 1-card deck, a
   1-card deck of two suits (ties) and a 2-card deck (pairs, card removal);
4. its hand order equals distcfr's deuce-to-seven evaluator.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

pytest.importorskip("scipy")


import nl27_oracle as oracle  # noqa: E402 -- tests/ is on the path (pytest's rootdir insertion)

Config = oracle.Config

PUSH_FOLD = dict(open=(), limp=False, bet=(), cap=1)
LP_TOL = 1e-9  # the linear program's solutions: exploitability and distance from a realisation plan

# The configurations whose equilibria are checked: (config, what it covers).
SOLVED = {
    "4x1x1 stack 10": Config(ranks=4, suits=1, hand=1, stack=10.0),
    "3x2x1 stack 5 (ties)": Config(ranks=3, suits=2, hand=1, stack=5.0),
    "4x1x1 stack 4, limp=0, open 2/3": Config(ranks=4, suits=1, hand=1, stack=4.0, open=(2.0, 3.0), limp=False,
                                              bet=(1.0,), cap=2),
    "4x2x2 stack 3 (pairs)": Config(ranks=4, suits=2, hand=2, stack=3.0, open=(2.0,), limp=False, bet=(1.0,),
                                    cap=1),
}


@cache
def _solution(name: str):
    return oracle.solve(SOLVED[name])


# --------------------------------------------------------------------------- 1. push/fold is draw27


@pytest.mark.parametrize("ranks, suits, hand, stack", [(4, 1, 1, 3.0), (4, 1, 1, 10.0), (3, 2, 1, 2.5),
                                                       (4, 2, 2, 3.0), (4, 2, 2, 10.0)])
def test_push_fold_equals_draw27(ranks, suits, hand, stack):
    from distcfr.games.registry import load_game
    from distcfr.solve.solver import Solver

    value = oracle.game_value(Config(ranks, suits, hand, stack, **PUSH_FOLD))
    game = load_game(f"draw27(ranks={ranks},suits={suits},hand={hand},stacks={stack:g})")
    strategy = Solver(game).solve(iterations=20000, target_exploitability=1e-9)
    br_button, br_big_blind = strategy.best_response_values()
    # The game value lies between what each side guarantees against the other's best response.
    assert -br_big_blind - 1e-12 <= value <= br_button + 1e-12
    assert strategy.exploitability() <= 1e-9


@pytest.mark.parametrize("ranks, suits, hand, stack", [(3, 2, 1, 2.5), (4, 2, 2, 3.0)])
def test_values_of_a_draw27_strategy_equal_distcfrs(ranks, suits, hand, stack):
    # A strategy far from equilibrium (3 iterations), read into the oracle's keys: its value and
    # both best responses, computed by the oracle, equal distcfr's evaluator.
    from distcfr.cards import RANKS, SUITS
    from distcfr.games.registry import load_game
    from distcfr.solve.solver import Solver

    strategy = Solver(load_game(f"draw27(ranks={ranks},suits={suits},hand={hand},stacks={stack:g})")).solve(
        iterations=3)

    def label(cards) -> str:  # draw27's hand label, high card first, of the oracle's cards (rank * suits + suit)
        return "".join(RANKS[c // suits] + SUITS[c % suits] for c in sorted(cards, reverse=True))

    def policy(player, key, n):
        if key[0] == "draw":  # draw27's masks are ours: bit j discards the j-th lowest card
            history = "ac" + (str(key[3]) if player == 0 else "")
            cards = key[1]
        else:
            history, cards = "".join(key[1]), key[0][1]
        probs = list(strategy.action_probs(f"{label(cards)}|{history}").values())
        assert len(probs) == n
        return probs

    values = oracle.policy_values(Config(ranks, suits, hand, stack, **PUSH_FOLD), policy)
    br_button, br_big_blind = strategy.best_response_values()
    assert values["value"] == pytest.approx(strategy.value(), abs=1e-12)
    assert values["br_button"] == pytest.approx(br_button, abs=1e-12)
    assert values["br_big_blind"] == pytest.approx(br_big_blind, abs=1e-12)
    assert strategy.exploitability() > 1e-3  # not an equilibrium: the best responses gain


def test_push_fold_lines_are_draw27s():
    lines = oracle.public_lines(Config(4, 1, 1, 10.0, **PUSH_FOLD))
    assert sorted(lines) == [(("a", "c"), (10.0, 10.0), "allin"), (("a", "f"), (10.0, 1.0), "fold"),
                             (("f",), (0.5, 1.0), "fold")]


# --------------------------------------------------------------------------- 2. worked by hand


def test_uniform_values_by_hand():
    # Push/fold at stack 2 on cards 2 < 3 < 4 < 5 (one each; the lower card wins 2, no ties).
    # Uniform play: the button folds (-0.5) or shoves, the big blind folds (+1) or calls, each
    # discards or keeps with 1/2. Relabelling cards does not change uniform play, and the two final
    # cards always differ, so the final pair is uniform over ordered pairs: the showdown is worth 0.
    # value = 1/2 * -0.5 + 1/4 * 1 + 1/4 * 0 = 0.
    # The button's best response: shoving beats folding with every card. Against the uniform big
    # blind, keeping the deuce wins 2; with the 3, keeping wins 2/3 of showdowns (worth 2/3) and
    # drawing is worth 0; with the 4 or the 5 drawing gets a card uniform among those the big
    # blind does not end with: worth 0 (keeping: -2/3 and -2). Per card 1/2 * 1 + 1/2 * (2, 2/3,
    # 0, 0): (1.5 + 5/6 + 0.5 + 0.5) / 4 = 5/6.
    # The big blind's best response: 1/2 the button folds (+0.5); facing the shove it calls with
    # every card, then by the same count its showdown is worth 2, 2/3, 0, 0 (calling beats -1):
    # 1/2 * 0.5 + 1/2 * (2 + 2/3) / 4 = 7/12.
    values = oracle.uniform_values(Config(4, 1, 1, 2.0, **PUSH_FOLD))
    assert values["value"] == pytest.approx(0.0, abs=1e-15)
    assert values["br_button"] == pytest.approx(5 / 6, abs=1e-15)
    assert values["br_big_blind"] == pytest.approx(7 / 12, abs=1e-15)


def _uniform_fold_value(cfg, b) -> float:
    """The button's payoff from folds under uniform play, walking the public betting alone."""
    if b.folded is not None:
        return oracle.fold_payoff(b)
    if b.over:
        return _uniform_fold_value(cfg, oracle.post_draw(b)) if b.pre and oracle.end_of(cfg, b) == "draw" else 0.0
    options = oracle.legal(cfg, b)
    return sum(_uniform_fold_value(cfg, nxt) for _, nxt in options) / len(options)


@pytest.mark.parametrize("cfg", [Config(4, 1, 1, 10.0), Config(3, 2, 1, 10.0), Config(5, 1, 1, 4.0, limp=False, cap=2)])
def test_uniform_value_of_one_card_decks_is_their_folds(cfg):
    # With one card each, uniform play ends with two cards whose order is as likely one way as the
    # other (relabelling the cards does not change uniform play), so showdowns are worth 0 and the
    # uniform value is what folds pay, from the betting alone.
    assert oracle.uniform_values(cfg)["value"] == pytest.approx(_uniform_fold_value(cfg, oracle.PRE_DRAW), abs=1e-14)


def _discards(player: int, hand: tuple[int, ...], drawn_by_big_blind: int | None, suits: int) -> int:
    """A fixed draw rule, card-dependent and unlike for the two players: the big blind throws its
    4s and 5s; the button stands pat when the big blind did and throws its whole hand otherwise."""
    if player == 1:
        return sum(1 << i for i, c in enumerate(hand) if c // suits >= 2)
    return 0 if drawn_by_big_blind == 0 else 2 ** len(hand) - 1


def _policy(player: int, key, n: int) -> list[float]:
    """The oracle's policy of that draw rule, uniform at every bet."""
    if key[0] != "draw":
        return [1.0 / n] * n
    mask = _discards(player, key[1], key[3] if player == 0 else None, suits=2)
    return [float(m == mask) for m in range(n)]


def _simulate(cfg, hands: int, seed: int) -> tuple[float, float]:
    """(mean, standard error) of the button's payoff over ``hands`` hands dealt from a shuffled
    deck, betting uniformly at random and drawing by ``_discards``: the deal and the stub played
    out, not enumerated."""
    rng = random.Random(seed)
    deck, h = list(range(cfg.ranks * cfg.suits)), cfg.hand
    total = total_sq = 0.0
    for _ in range(hands):
        rng.shuffle(deck)
        button, big_blind, stub = sorted(deck[:h]), sorted(deck[h:2 * h]), deck[2 * h:]
        b = oracle.PRE_DRAW
        while b.folded is None and not b.over:
            b = rng.choice(oracle.legal(cfg, b))[1]
        if b.folded is None:
            final, drawn_by_big_blind = [], None
            for player, hand in ((1, big_blind), (0, button)):  # the big blind draws first, from the top
                mask = _discards(player, tuple(hand), drawn_by_big_blind, cfg.suits)
                kept = [c for i, c in enumerate(hand) if not mask >> i & 1]
                drawn_by_big_blind = h - len(kept) if player == 1 else drawn_by_big_blind
                final.append(kept + stub[:h - len(kept)])
                stub = stub[h - len(kept):]
            if oracle.end_of(cfg, b) == "draw":
                b = oracle.post_draw(b)
                while b.folded is None and not b.over:
                    b = rng.choice(oracle.legal(cfg, b))[1]
        if b.folded is not None:
            payoff = oracle.fold_payoff(b)
        else:
            payoff = oracle.showdown(cfg, (final[1], final[0]), b.contrib)
        total += payoff
        total_sq += payoff * payoff
    mean = total / hands
    return mean, ((total_sq / hands - mean * mean) / hands) ** 0.5


@pytest.mark.parametrize("cfg", [Config(4, 2, 2, 3.0, **PUSH_FOLD), Config(4, 2, 2, 3.0, open=(2.0,), limp=False,
                                                                          bet=(1.0,), cap=1)])
def test_policy_value_equals_play_from_a_shuffled_deck(cfg):
    mean, error = _simulate(cfg, 40000, seed=5)
    value = oracle.policy_values(cfg, _policy)["value"]
    assert abs(value - oracle.uniform_values(cfg)["value"]) > 8 * error  # the draw rule matters
    assert abs(value - mean) <= 4 * error


def test_games_md_example_lines():
    # GAMES.md, nl27, default betting at stack 10: the button folds, limps, opens to 2.5 or shoves;
    # after a limp the big blind checks, raises to 3 or shoves; after the open it folds, calls,
    # raises to 7.5 or shoves.
    cfg = Config(4, 1, 1, 10.0)
    lines = oracle.public_lines(cfg)
    first = {line[0][0] for line in lines}
    assert first == {"f", "c", "r2.5", "a"}
    assert {line[0][1] for line in lines if line[0][0] == "c"} == {"k", "r3", "a"}
    assert {line[0][1] for line in lines if line[0][0] == "r2.5"} == {"f", "c", "r7.5", "a"}
    # A line's pot by hand: limp (1), raise to 3 x 1, re-raise to 3 x 3 = 9, shove (10), fold.
    ends = {actions: (contrib, end) for actions, contrib, end in lines}
    assert ends[("c", "r3", "r9", "a", "f")] == ((9.0, 10.0), "fold")
    assert ends[("r2.5", "r7.5", "c")] == ((7.5, 7.5), "draw")
    assert ends[("c", "k")] == ((1.0, 1.0), "draw")
    # The cap of 3 raises: after open, 3-bet and shove the button may only fold or call.
    assert ends[("r2.5", "r7.5", "a", "c")] == ((10.0, 10.0), "allin")
    assert len(lines) == 22


def test_post_draw_example():
    # GAMES.md: after the draw with 2.5 each (pot 5) the big blind checks, bets 2.5 or 5 (totals
    # 5 and 7.5), or shoves; facing the bet of 2.5 the button folds, calls, raises to 2.5 + 3 x 2.5
    # = 10 (the stack: offered as the all-in only).
    cfg = Config(4, 1, 1, 10.0)
    opened = [b for _, b in oracle.legal(cfg, oracle.PRE_DRAW) if b.actions == ("r2.5",)][0]
    called = [b for _, b in oracle.legal(cfg, opened) if b.actions[-1] == "c"][0]
    post = oracle.post_draw(called)
    assert post.actor == 1 and post.contrib == (2.5, 2.5)
    assert [label for label, _ in oracle.legal(cfg, post)] == ["k", "r5", "r7.5", "a"]
    bet = dict(oracle.legal(cfg, post))["r5"]
    assert [label for label, _ in oracle.legal(cfg, bet)] == ["f", "c", "a"]
    folded = dict(oracle.legal(cfg, bet))["f"]
    assert oracle.fold_payoff(folded) == -2.5
    # At stack 20 the raise over the half-pot bet is to 2.5 + 3 x 2.5 = 10.
    deep = Config(4, 1, 1, 20.0)
    assert [label for label, _ in oracle.legal(deep, dict(oracle.legal(deep, post))["r5"])] == ["f", "c", "r10", "a"]


def test_limp_zero_and_cap_one():
    lines = oracle.public_lines(Config(4, 1, 1, 10.0, limp=False, cap=1))
    assert sorted(lines) == [(("a", "c"), (10.0, 10.0), "allin"), (("a", "f"), (10.0, 1.0), "fold"),
                             (("f",), (0.5, 1.0), "fold"), (("r2.5", "c"), (2.5, 2.5), "draw"),
                             (("r2.5", "f"), (2.5, 1.0), "fold")]


def test_sizes_at_or_above_the_stack_collapse_into_the_all_in():
    # Stack 2.5: the open to 2.5 is the stack itself, so only the shove is offered.
    assert {line[0][0] for line in oracle.public_lines(Config(4, 1, 1, 2.5))} == {"f", "c", "a"}


# --------------------------------------------------------------------------- 3. equilibria


@pytest.mark.parametrize("name", [pytest.param(name, marks=[pytest.mark.slow] * ("pairs" in name)) for name in SOLVED])
def test_linear_program_gives_an_equilibrium(name):
    solution = _solution(name)
    assert solution.plan_error <= LP_TOL
    assert abs(solution.exploitability) <= LP_TOL
    # The value lies between what each side gets best-responding to the other's uniform play.
    uniform = oracle.uniform_values(SOLVED[name])
    assert -uniform["br_big_blind"] <= solution.value <= uniform["br_button"]
    assert -uniform["br_big_blind"] <= uniform["value"] <= uniform["br_button"]


def test_values_on_small_decks():
    # Golden values of this oracle (the linear program's optimum, checked as an equilibrium above).
    assert _solution("4x1x1 stack 10").value == pytest.approx(1 / 16, abs=1e-9)
    assert _solution("3x2x1 stack 5 (ties)").value == pytest.approx(-2 / 63, abs=1e-9)


def test_betting_is_worth_something_to_the_button():
    # The button may still play push/fold when betting is allowed, so its value cannot drop.
    cfg = SOLVED["4x1x1 stack 10"]
    push_fold = oracle.game_value(Config(4, 1, 1, 10.0, **PUSH_FOLD))
    assert push_fold == pytest.approx(-0.125, abs=1e-9)
    assert _solution("4x1x1 stack 10").value >= push_fold
    assert cfg.stack == 10.0


# --------------------------------------------------------------------------- 4. hand order


def test_hand_order_equals_distcfr():
    from distcfr.cards import lowball27_rank

    rng = np.random.default_rng(7)
    for size in (1, 2, 3, 4, 5):
        hands = [tuple(sorted(rng.choice(52, size, replace=False).tolist())) for _ in range(3000)]
        # The oracle's card is rank * suits + suit, distcfr's rank * 4 + suit: the same with 4 suits.
        ours = sorted((oracle.lowball_key(h, 4), h) for h in hands)
        theirs = lowball27_rank(np.array([h for _, h in ours])).tolist()  # (3000,) in the oracle's order
        for (key_a, _), (key_b, _), rank_a, rank_b in zip(ours, ours[1:], theirs, theirs[1:]):
            assert rank_a < rank_b if key_a < key_b else rank_a == rank_b

"""The nl27 oracle (``nl27_oracle.py``, beside this file) checked on its own.

1. its push/fold special case (open=none, limp=0, bet=none, cap=1) equals draw27's exact solve;
2. numbers worked out by hand (uniform values on the 4-card deck, pots of lines, the GAMES.md example);
3. its linear program's solutions are equilibria by its own best responses, on a 1-card deck, a
   1-card deck of two suits (ties) and a 2-card deck (pairs, card removal);
4. its hand order equals distcfr's deuce-to-seven evaluator.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")


def _load_oracle():
    # Loaded by path, so it works whatever pytest's import mode.
    name = "nl27_oracle"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


oracle = _load_oracle()
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

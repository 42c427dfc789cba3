"""PokerKit as an independent referee of nl27's rules, against the oracle (``nl27_oracle.py``).

Explicit lines are played twice, on the full deck with fixed 5-card hands and draws: in the oracle
(its betting and payoffs) and in PokerKit's ``NoLimitDeuceToSevenLowballSingleDraw`` at 10 chips
to the big blind (blinds 5 / 10, so every size of ours is an integer). Both must agree on who acts,
the pot, each payoff and the final stacks; and every size of ours must be a legal raise there.

Where PokerKit's rules differ from ours, and what is therefore not compared:
* PokerKit is no-limit proper: any total from the minimum raise (the last raise's increment, at
  least the big blind) to all-in, and no cap on raises. Ours is a menu (``open``, ``raise`` x the
  current bet, ``bet`` x pot, all-in) and ``cap`` raises a round; only our sizes are played, and
  the test checks each lies within PokerKit's legal range. Our cap and menu are not refereed.
* Heads-up PokerKit seats the big blind as player 0 and the button (small blind) as player 1;
  the button acts first before the draw, the big blind first after it and draws first, as ours.
* PokerKit deals the replacement cards we name; the oracle's chance over the stub is not refereed.
"""

from __future__ import annotations

import pytest

pokerkit = pytest.importorskip("pokerkit")


import nl27_oracle as oracle  # noqa: E402 -- tests/ is on the path (pytest's rootdir insertion)

CHIPS = 10  # chips per big blind
SEAT = (1, 0)  # PokerKit's player index of our button (0) and big blind (1)
AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING, pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING, pokerkit.Automation.CARD_BURNING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING, pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING, pokerkit.Automation.CHIPS_PULLING,
)

# (stack, pre-draw actions, post-draw actions, big blind's hand / discards / draws,
#  button's hand / discards / draws, the button's payoff in BB worked out by hand)
LINES = [
    # limp, check; check, check: 7-5-4-3-2 (drawn to) beats 8-6: the button loses its 1
    (10, "c k", "k k", ("Kc5d4h3s2c", "Kc", "7s"), ("8c6d5h3h2d", "", ""), -1.0),
    # open to 2.5, call; bet 2.5 (half the pot of 5), shove, call: 7-6 (button) beats 8-6 for 10
    (10, "r2.5 c", "r5 a c", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "Kc", "6s"), 10.0),
    # the same at 20: bet 2.5, raise to 2.5 + 3 x 2.5 = 10, call; the big blind's 9-high wins 10
    (20, "r2.5 c", "r5 r10 c", ("9c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "Kc7d", "Ks9s"), -10.0),
    # open, 3-bet to 7.5, call; check, shove, fold: the button wins the big blind's 7.5
    (10, "r2.5 r7.5 c", "k a f", ("8c6d5h3h2d", "8c", "Qs"), ("Kc7d4h3s2c", "Kc", "Kh"), 7.5),
    # shove, call; both draw to 7-5-4-3-2: a tie pays 0
    (10, "a c", "", ("Kc5d4h3s2c", "Kc", "7s"), ("Qc5h4d3c2d", "Qc", "7d"), 0.0),
    # limp, raise to 3, call; bet 3 (half the pot of 6), fold: the button loses 3
    (10, "c r3 c", "r6 f", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "", ""), -3.0),
    # the button folds its small blind; opens and the big blind folds
    (10, "f", "", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "", ""), -0.5),
    (10, "r2.5 f", "", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "", ""), 1.0),
    # stack 3: limp, check; bet 1 (half the pot of 2), the button shoves, call: 7-6 beats 8-6 for 3
    (3, "c k", "r2 a c", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "Kc", "6s"), 3.0),
    # stack 3: open to 2.5, call; check, shove, fold (no bet size fits below the stack)
    (3, "r2.5 c", "k a f", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "", ""), 2.5),
    # stack 3: open, the big blind shoves (3 x 2.5 exceeds the stack), call: a pair of kings loses 3
    (3, "r2.5 a c", "", ("8c6d5h3h2d", "", ""), ("Kc7d4h3s2c", "7d", "Kh"), -3.0),
]


def _cards(text: str) -> tuple[int, ...]:
    """The oracle's card ints (rank * 4 + suit, suits c d h s) of text such as ``"Kc5d"``."""
    return tuple("23456789TJQKA".index(text[i]) * 4 + "cdhs".index(text[i + 1]) for i in range(0, len(text), 2))


def _act(state, cfg, b, label: str):
    """Play ``label`` in the oracle state ``b`` and in PokerKit's ``state``; the oracle's next state."""
    assert state.actor_index == SEAT[b.actor]
    if label == "f":
        state.fold()
    elif label in ("k", "c"):
        state.check_or_call()
    else:
        # Our sizes are totals over the hand, PokerKit's what is put in during this round.
        total = round(((cfg.stack if label == "a" else float(label[1:])) - b.start) * CHIPS)
        assert state.min_completion_betting_or_raising_to_amount <= total
        assert total <= state.max_completion_betting_or_raising_to_amount
        assert (label == "a") == (total == state.max_completion_betting_or_raising_to_amount)
        state.complete_bet_or_raise_to(total)
    return dict(oracle.legal(cfg, b))[label]


@pytest.mark.parametrize("stack, pre, post, big_blind, button, expected", LINES)
def test_line_agrees_with_pokerkit(stack, pre, post, big_blind, button, expected):
    cfg = oracle.Config(ranks=13, suits=4, hand=5, stack=float(stack))
    state = pokerkit.NoLimitDeuceToSevenLowballSingleDraw.create_state(
        AUTOMATIONS, False, 0, (CHIPS // 2, CHIPS), CHIPS, stack * CHIPS, 2)
    state.deal_hole(big_blind[0])  # PokerKit's player 0: the big blind
    state.deal_hole(button[0])

    b = oracle.PRE_DRAW
    for label in pre.split():
        b = _act(state, cfg, b, label)
    assert (b.actions, b.contrib, oracle.end_of(cfg, b)) in oracle.public_lines(cfg)
    if oracle.end_of(cfg, b) == "fold":
        payoff = oracle.fold_payoff(b)
    else:
        assert state.total_pot_amount == round(sum(b.contrib) * CHIPS)
        final = []
        for seat, (hand, discards, draws) in ((0, big_blind), (1, button)):  # the big blind draws first
            assert state.stand_patter_or_discarder_index == seat
            state.stand_pat_or_discard(discards)
            final.append(tuple(c for c in _cards(hand) if c not in _cards(discards)) + _cards(draws))
        for seat, (_, _, draws) in ((0, big_blind), (1, button)):
            if draws:
                assert state.hole_dealee_index == seat
                state.deal_hole(draws)
        if oracle.end_of(cfg, b) == "draw":
            b = oracle.post_draw(b)
            for label in post.split():
                b = _act(state, cfg, b, label)
            assert b.folded is not None or b.over
        big_blind_final, button_final = final
        payoff = oracle.fold_payoff(b) if b.folded is not None else oracle.showdown(
            cfg, (button_final, big_blind_final), b.contrib)
    assert not state.status  # PokerKit's hand is over too
    assert payoff == expected
    assert state.payoffs[SEAT[0]] == round(payoff * CHIPS)
    assert state.payoffs[SEAT[1]] == -round(payoff * CHIPS)
    assert state.stacks[SEAT[0]] == round((stack + payoff) * CHIPS)
    assert state.stacks[SEAT[1]] == round((stack - payoff) * CHIPS)

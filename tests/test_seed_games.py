"""The seed games: hand-checked rules, convergence, stack lists, tables."""

import numpy as np
import pytest

import distcfr
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.layout import Layout
from distcfr.evaluate.tables import render_tables
from distcfr.games.community13 import showdown_sign

SOLVED = {}


def solved(spec, target=1e-5):
    if spec not in SOLVED:
        SOLVED[spec] = distcfr.Solver(distcfr.load_game(spec)).solve(iterations=20000, target_exploitability=target)
    return SOLVED[spec]


@pytest.mark.parametrize("spec", ["community13", "community13(board=hidden)", "minipoker",
                                  "minipoker(ranks=5)", "draw27", "draw27(ranks=8,suits=1,hand=2)",
                                  "draw27(ranks=6,suits=2,hand=2,stacks=2:4:1)"])
def test_exploitability_falls_and_best_responses_bracket_value(spec):
    strategy = solved(spec)
    assert 0 <= strategy.exploitability() < 1e-4
    for v in range(len(strategy.game.variant_labels)):
        br1, br2 = strategy.best_response_values(v)
        assert -br2 <= strategy.value(v) <= br1


# ---- community13 ---------------------------------------------------------------------------
@pytest.mark.parametrize("p1, p2, board, expected", [
    (9, 12, 10, 1),    # 9 makes a straight with the 10; Q does not
    (11, 9, 10, 1),    # two straights: J-10 (top J) beats 10-9 (top 10)
    (9, 11, 10, -1),
    (3, 5, 10, 0),     # both below the board, no straight: a draw
    (12, 3, 10, 1),    # no straight, not both below: higher card
    (2, 14, 13, -1),   # A-K straight beats nothing (no wrap-around to the deuce)
    (14, 3, 2, -1),    # A is not adjacent to 2: 3-2 is the only straight
    (7, 4, 5, -1),     # 4-5 straight against a 7 that is above the board
])
def test_community13_showdown(p1, p2, board, expected):
    got = showdown_sign(np.array([p1 - 2]), np.array([p2 - 2]), np.array([board - 2]))
    assert got[0] == expected


def test_community13_payoffs_and_board_visibility():
    game = distcfr.load_game("community13")
    deals = np.array([[7, 10, 8]])  # private 9 vs Q, board 10: player 1 has the straight
    for history, payoff in (("pp", 1), ("bb", 2), ("pbb", 2), ("bp", 1), ("pbp", -1)):
        assert game.utility(tuple(history), deals)[0, 0] == payoff
    visible = Layout(game).labels
    hidden = Layout(distcfr.load_game("community13(board=hidden)")).labels
    assert "9/T|" in visible and "9|" in hidden and len(visible) == 13 * len(hidden)


# ---- minipoker -----------------------------------------------------------------------------
def test_minipoker_raise_path():
    game = distcfr.load_game("minipoker")
    tree = game.tree
    assert [tree.action_labels[i] for i in range(3)] == [("check", "bet"), ("check", "bet"),
                                                         ("fold", "call", "raise")]
    high_first = np.array([[12, 0]])  # A against 2
    expected = {"kk": 1, "kbf": -1, "kbc": 2, "kbrf": 2, "kbrc": 4, "bf": 1, "bc": 2, "brf": -2, "brc": 4}
    for history, payoff in expected.items():
        assert game.utility(tuple(history), high_first)[0, 0] == payoff
    assert game.actions(tuple("kbr")) == (("f", "fold"), ("c", "call"))  # no re-raise
    assert game.actions(tuple("brc")) == ()


def test_minipoker_table_matches_strategy():
    strategy = solved("minipoker")
    text = render_tables(strategy)
    for word in ("Bet", "Continue", "Raise", "Call Raise", "exploitability", "player A", "player B"):
        assert word in text
    # an ace always calls a raise; a deuce never continues facing a bet
    assert strategy.action_probs("A|br")["call"] == pytest.approx(1, abs=1e-3)
    assert strategy.action_probs("2|b")["fold"] == pytest.approx(1, abs=1e-3)


# ---- draw27 ----------------------------------------------------------------------------------
def test_draw27_button_sees_the_draw_count_not_the_cards():
    layout = Layout(distcfr.load_game("draw27(ranks=8,suits=1,hand=2)"))
    button_draw = [g for g in layout.groups if g.player == 0 and g.depth == 3]
    assert sorted(g.observation for g in button_draw) == ["ac0", "ac1", "ac2"]  # by count only
    shared = [n for n, h in enumerate(layout.tree.histories) if h[:2] == ("a", "c") and len(h) == 3]
    counts = {layout.tree.histories[n][2]: layout.node_offset[n] for n in shared}
    assert counts["1"] == counts["2"] != counts["3"] != counts["0"]  # masks 01 and 10 both draw one


def test_draw27_discard_payoff_hand_checked():
    # ranks 2..5, one suit, one card each: stub of two cards.
    game = distcfr.load_game("draw27(ranks=4,suits=1,hand=1,stacks=2)")
    deal = np.array([[4, 12, 0, 0]])  # button holds the 3 (card 4), big blind the 5 (card 12)
    stand = game.utility(("a", "c", "0", "0"), deal)[0, 0]
    assert stand == 2.0  # 3 beats 5 at showdown, stack 2
    # big blind throws the 5 and draws one of {2, 4}: wins with the 2, loses with the 4
    assert game.utility(("a", "c", "1", "0"), deal)[0, 0] == pytest.approx(0.0)
    # both draw: BB takes one of {2, 4}, button the other: button wins iff BB drew the 4
    assert game.utility(("a", "c", "1", "1"), deal)[0, 0] == pytest.approx(0.0)
    assert game.utility(("f",), deal)[0, 0] == -0.5 and game.utility(("a", "f"), deal)[0, 0] == 1.0


def test_draw27_break_even_near_write_up():
    strategy = distcfr.Solver(distcfr.load_game("draw27(stacks=1.5:10:0.5)")).solve(
        iterations=5000, target_exploitability=1e-6)
    from distcfr.evaluate.break_even import crossings

    points = crossings(strategy.game.variant_values, strategy.value_per_variant)
    assert len(points) == 1 and 3.5 < points[0] < 4.5  # the pushfold_2to7 write-up (docs/SEEDS.md): about 3.9 BB


def test_stack_list_equals_stacks_alone():
    stacks = (1.5, 3.0, 6.5)
    together = distcfr.Solver(distcfr.load_game("draw27(ranks=8,suits=1,hand=2,stacks=1.5:6.5:0.5)"))
    for _ in range(60):
        together.step()
    joint = together.average_strategy()
    for stack in stacks:
        alone = distcfr.Solver(distcfr.load_game(f"draw27(ranks=8,suits=1,hand=2,stacks={stack:g})"))
        for _ in range(60):
            alone.step()
        v = together.game.variant_values.index(stack)
        assert np.abs(joint.probs[v] - alone.average_strategy().probs[0]).max() < 1e-9


BAD = ["draw27(ranks=3,suits=1,hand=1)", "draw27(ranks=13,suits=1,hand=6)", "draw27(suits=5)",
       "draw27(stacks=0.5)", "draw27(stacks=4:2:0.5)", "draw27(stacks=2:4:0)", "draw27(stacks=2:4)",
       "draw27(stacks=many)", "draw27(ranks=1)", "draw27(colour=red)",
       "minipoker(ranks=1)", "minipoker(ranks=14)", "community13(board=sideways)"]


@pytest.mark.parametrize("spec", BAD)
def test_bad_parameters(spec):
    with pytest.raises(distcfr.BadParameter):
        distcfr.load_game(spec)


@pytest.mark.parametrize("spec", ["draw27(ranks=13,suits=4,hand=5)", "draw27(ranks=13,suits=4,hand=3)",
                                  "draw27(ranks=11,suits=2,hand=3)"])
def test_too_large_to_enumerate_is_refused_by_the_exact_solver_and_sampled_instead(spec):
    game = distcfr.load_game(spec)  # a real game: the CLI solves it by sampling
    assert game.exact_size_problem() and sampled_kernel(game).n_classes > 0
    with pytest.raises(distcfr.BadParameter, match="sampling"):
        distcfr.Solver(game)


def test_write_up_minipoker_tables_are_exploitable_and_ours_is_not():
    from distcfr.seeds import MINIPOKER_TABLES, minipoker_from_table

    game = distcfr.load_game("minipoker")
    for table in MINIPOKER_TABLES.values():
        theirs = minipoker_from_table(game, table)
        assert theirs["A|"]["bet"] == table["A"][0][0] and theirs["2|kbr"]["call"] == table["B"][3][12]
        assert theirs.exploitability() > 0.01
    assert solved("minipoker").exploitability() < 1e-5

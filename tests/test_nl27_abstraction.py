"""nl27's card abstractions (``draw=rule``, ``post=value`` or N buckets): the rule's discards, the
spec, the rule's actions and observations, the exact solver on the abstract game, and the lift of
an abstract strategy to the perfect-recall game."""

import numpy as np
import pytest

import distcfr
from distcfr.cards import parse
from distcfr.errors import BadParameter
from distcfr.games.nl27_abstraction import rule_masks
from distcfr.train import main


def game(spec):
    return distcfr.load_game(spec)


def codes(g, history):
    return [code for code, _ in g.actions(tuple(history))]


# ---- the rule's discards --------------------------------------------------------------------------
def _ids(text):
    return sorted(int(c) for c in parse(text))


@pytest.mark.parametrize("hand, masks", [
    ("2c2d5h", [0, 0b010, 0b110, 0b111]),  # the second deuce first, then the five, then the deuce kept
    ("2c7dAc", [0, 0b100, 0b110, 0b111]),  # aces high: the ace is the worst card
    ("3c3d3h4c9s", [0, 0b00001, 0b00101, 0b10101, 0b11101, 0b11111]),  # trips: club (2 clubs), heart, 9, 4
    ("8c6d4h3s2c", [0, 0b10000, 0b11000, 0b11100, 0b11110, 0b11111]),  # no pair: highest first
    ("2c2d", [0, 0b10, 0b11]),
])
def test_rule_masks_discard_the_worst_cards(hand, masks):
    assert rule_masks(np.array([_ids(hand)])).tolist() == [masks]


def test_rule_masks_of_many_hands_at_once():
    hands = np.array([_ids("2c2d5h"), _ids("4c5d6h"), _ids("2c7dAc")])
    assert rule_masks(hands)[:, 1].tolist() == [0b010, 0b100, 0b100]


# ---- the spec ----------------------------------------------------------------------------------------
def test_defaults_leave_the_spec_as_it_was():
    assert game("nl27(ranks=13,suits=2,hand=1)").spec == "nl27(suits=2)"
    assert game("nl27(draw=all,post=recall)").spec == "nl27"
    assert game("nl27(suits=2,draw=RULE,post=value)").spec == "nl27(suits=2,draw=rule,post=value)"
    assert game("nl27(post=08)").spec == "nl27(post=8)"


@pytest.mark.parametrize("spec, words", [
    ("nl27(draw=some)", "draw is all"),
    ("nl27(post=1)", "at least 2"),
    ("nl27(post=forget)", "post is recall, value"),
    ("nl27(post=-3)", "post is recall, value"),
])
def test_bad_abstractions_are_refused_in_one_line(spec, words, capsys):
    with pytest.raises(BadParameter, match=words):
        game(spec)
    assert main(["--game", spec, "--iterations", "1", "--workers", "0", "--no-tables"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and words in err


# ---- the rule's actions and observations -------------------------------------------------------------
def test_a_rule_draw_offers_the_counts():
    g = game("nl27(ranks=8,suits=1,hand=2,stacks=10,draw=rule)")
    assert g.actions(("c", "k")) == (("n0", "stand pat"), ("n1", "draw 1"), ("n2", "draw 2"))
    assert g.player(("c", "k")) == 1 and g.player(("c", "k", "n2")) == 0 and g.player(("c", "k", "n2", "n1")) == 1
    post = ("c", "k", "n2", "n1")
    assert codes(g, post) == ["k", "b1", "b2", "a"]
    assert g.observation(post, 1) == "c-k-n2-n1" and g.observation(post, 0) == "c-k-n2-n1"
    assert g.terminal_payoff((*post, "k", "k")) == ("showdown", pytest.approx([1.0]))
    assert g.terminal_payoff((*post, "b2", "f"))[1] == pytest.approx([-1.0])  # the big blind bets, the button folds
    assert codes(g, ["a", "c", "n0", "n2"]) == []
    assert g.own_count(post, 1) == 2 and g.own_count(post, 0) == 1 and g.own_count(("c", "k"), 1) is None


def test_post_abstraction_shows_the_own_draw_as_a_count():
    history = ("c", "k", "d3", "d1")
    recall, value = game("nl27(ranks=8,suits=1,hand=2)"), game("nl27(ranks=8,suits=1,hand=2,post=value)")
    assert recall.observation(history, 1) == "c-k-d3-n1" and value.observation(history, 1) == "c-k-n2-n1"
    assert value.observation(history, 0) == "c-k-n2-n1"

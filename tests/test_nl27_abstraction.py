"""nl27's card abstractions (``draw=rule``, ``post=value`` or N buckets): the rule's discards, the
spec, the rule's actions and observations, the exact solver on the abstract game, and the lift of
an abstract strategy to the perfect-recall game."""

import numpy as np
import pytest

import distcfr
from distcfr.cards import parse
from distcfr.engine.layout import Layout
from distcfr.errors import BadParameter
from distcfr.evaluate.nl27_lift import abstract_exploitability, lift_strategy
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


# ---- the exact solver on the abstract game ------------------------------------------------------------
ONE_CARD = "nl27(ranks=6,suits=1,hand=1,stacks=4:8:4)"
TWO_CARD = "nl27(ranks=4,suits=2,hand=2,stacks=3,bet=1,cap=2)"


def _with(spec, extra):
    return spec[:-1] + "," + extra + ")"


def _random_profile(layout, seed):
    rng = np.random.default_rng(seed)
    probs = rng.random((layout.n_variants, layout.n_infosets, layout.max_actions)) * layout.variant_mask
    return probs / probs.sum(axis=-1, keepdims=True)


def test_one_card_rule_draws_are_the_full_game():
    """With one card the rule's counts are the masks (stand pat, or throw the card): the same game."""
    full = distcfr.Solver(game(ONE_CARD), algorithm="cfr+").solve(iterations=150)
    rule_game = game(_with(ONE_CARD, "draw=rule"))
    rule = distcfr.Solver(rule_game, algorithm="cfr+").solve(iterations=150)
    assert np.abs(full.value_per_variant - rule.value_per_variant).max() < 1e-12
    assert np.abs(full.best_response_per_variant - rule.best_response_per_variant).max() < 1e-12
    _, lifted = lift_strategy(rule_game, rule)
    assert lifted.layout.labels == full.layout.labels
    assert np.abs(lifted.probs - full.probs).max() < 1e-12


def test_post_keys_label_the_rows_past_the_draw():
    g = game("nl27(ranks=6,suits=2,hand=2,stacks=10,post=value)")
    history = ("c", "k", "d1", "d0")  # the big blind threw its lowest card, the button stood pat
    assert g.private_labels(history, 1)[:3] == ("3-2", "4-2", "4-3")
    assert len(g.private_labels(history, 1)) == 21  # 15 unpaired values and 6 pairs
    assert g.private_labels(history[:3], 0) == g.private_labels((), 0)  # the button has not drawn yet
    buckets = game("nl27(ranks=6,suits=2,hand=2,stacks=10,post=8)")
    assert buckets.private_labels(history, 1) == tuple(f"value bucket {b}" for b in range(8))


def test_rule_draws_keeping_recall_converge():
    """draw=rule only takes draws away: the game keeps perfect recall, and CFR converges."""
    solver = distcfr.Solver(game(_with(TWO_CARD, "draw=rule")))
    first = solver.solve(iterations=10).exploitability()
    assert solver.solve(iterations=300).exploitability() < min(1e-3, first / 20)


def test_post_value_settles_on_a_one_card_deck():
    """Keys forget the card thrown (imperfect recall): CFR's value and the lifted strategy's cost
    settle, while a best response choosing per key need not fall to 0 (it is not a bound here)."""
    g = game("nl27(ranks=6,suits=1,hand=1,stacks=4,post=value)")
    solver = distcfr.Solver(g)
    early = solver.solve(iterations=1000)
    late = solver.solve(iterations=2000)
    assert abs(early.value() - late.value()) < 1e-4
    costs = [lift_strategy(g, s)[1].exploitability() for s in (early, late)]
    assert 0.02 < costs[0] < 0.04 and abs(costs[0] - costs[1]) < 2e-3


@pytest.mark.parametrize("spec", [_with(ONE_CARD, "post=value"), _with(ONE_CARD, "draw=rule,post=3"),
                                  _with(TWO_CARD, "draw=rule"), _with(TWO_CARD, "post=value"),
                                  _with(TWO_CARD, "draw=rule,post=4")])
def test_a_lifted_strategy_keeps_its_value(spec):
    """Both games share chance and payoffs: the lifted strategy's value is the abstract one's. A best
    response found in the abstract game (one choice per key) is a strategy of the abstract game,
    hence of the full game: it gains no more than the full game's best response against the lifted
    strategy, and the rounds only add to the first, per-key one."""
    abstract = game(spec)
    strategy = distcfr.Strategy(Layout(abstract), _random_profile(Layout(abstract), 5))
    full, lifted = lift_strategy(abstract, strategy)
    assert full.spec == abstract.spec.replace(",draw=rule", "").replace(f",post={abstract.params.post}", "")
    assert np.abs(lifted.probs.sum(axis=-1) - 1).max() < 1e-12
    assert np.abs(lifted.value_per_variant - strategy.value_per_variant).max() < 1e-12
    assert (lifted.best_response_per_variant >= strategy.best_response_per_variant - 1e-12).all()
    rounds = abstract_exploitability(strategy)
    assert (strategy.exploitability_per_variant() <= rounds + 1e-12).all()
    assert (rounds <= lifted.exploitability_per_variant() + 1e-12).all()
    assert (lifted.exploitability_per_variant() > 1e-6).all()


def test_rounds_change_nothing_with_perfect_recall():
    g = game(_with(TWO_CARD, "draw=rule"))
    strategy = distcfr.Strategy(Layout(g), _random_profile(Layout(g), 2))
    assert np.abs(abstract_exploitability(strategy) - strategy.exploitability_per_variant()).max() < 1e-12


def test_rounds_find_what_the_per_key_response_misses():
    """CFR's average on a game that forgets the card thrown: the per-key response, blind to which
    states the responder reaches, finds almost nothing; weighing by its own reach finds more."""
    strategy = distcfr.Solver(game("nl27(ranks=6,suits=1,hand=1,stacks=4,post=value)")).solve(iterations=1000)
    assert strategy.exploitability() < 1e-4 and abstract_exploitability(strategy)[0] > 2e-4


def test_the_abstract_best_response_chooses_per_key():
    """A key holds states that would answer differently: the best response that must choose once per
    key gains less than one choosing per (hand, cards received) state, which the same profile,
    lifted, meets in the full game."""
    abstract = game(_with(TWO_CARD, "post=value"))
    layout = Layout(abstract)
    uniform = distcfr.Strategy(layout, layout.uniform_strategy())
    _, lifted = lift_strategy(abstract, uniform)
    assert (lifted.best_response_per_variant > uniform.best_response_per_variant + 5e-4).any()


def test_train_prints_an_abstract_games_tables(tmp_path, capsys):
    spec = _with(TWO_CARD, "draw=rule,post=value")
    assert main(["--game", spec, "--iterations", "5", "--workers", "0", "--out", str(tmp_path / "s.msgpack")]) == 0
    out = capsys.readouterr().out
    assert "draws on the main lines" in out and "after the draw, limp-check" in out
    reader = distcfr.load_strategy(tmp_path / "s.msgpack")
    keyed = [label for label in reader.labels() if label.startswith("5-4|")]
    assert keyed and all(label.count("|") == 1 and "n" in label.split("|")[1] for label in keyed)


def test_shards_of_an_abstract_game_add_up_to_the_whole():
    spec = _with(TWO_CARD, "draw=rule,post=value")
    one, three = distcfr.Solver(game(spec), shards=1), distcfr.Solver(game(spec), shards=3)
    probs = _random_profile(one.layout, 4)
    for p in (0, 1):
        (q1, r1), (q3, r3) = one.shards.cfr_sums(probs, (p,))[p], three.shards.cfr_sums(probs, (p,))[p]
        assert np.abs(q1 - q3).max() < 1e-12 and np.abs(r1 - r3).max() < 1e-12
    assert np.abs(one.evaluator.exploitability(probs) - three.evaluator.exploitability(probs)).max() < 1e-12

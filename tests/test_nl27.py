"""nl27: its rules on hand-built lines, the push/fold identity with draw27, the range-form pass
against the deal-form pass, convergence, bitwise reproducibility and bad specs."""

import math

import numpy as np
import pytest

import distcfr
from distcfr.engine.layout import Layout
from distcfr.errors import BadParameter
from distcfr.solve.checkpoint import Checkpoint
from distcfr.train import main

SMALL = "nl27(ranks=5,suits=1,hand=1,stacks=4)"
TWO_CARD = "nl27(ranks=4,suits=2,hand=2,stacks=3,bet=1,cap=2)"


def game(spec):
    return distcfr.load_game(spec)


def codes(g, history):
    return [code for code, _ in g.actions(tuple(history))]


# ---- rules --------------------------------------------------------------------------------------
def test_the_games_example_at_stack_10():
    g = game("nl27(stacks=10)")
    assert codes(g, []) == ["f", "c", "r2.5", "a"]  # fold, limp, open to 2.5, shove
    assert [label for _, label in g.actions(())] == ["fold", "limp", "open 2.5", "all-in"]
    assert codes(g, ["c"]) == ["k", "r3", "a"]  # after a limp: check, raise to 3, shove
    assert codes(g, ["r2.5"]) == ["f", "c", "r7.5", "a"]  # after the open: fold, call, raise to 7.5, shove
    assert codes(g, ["c", "r3"]) == ["f", "c", "r9", "a"]  # the limper re-raises to 3x
    assert codes(g, ["r2.5", "r7.5"]) == ["f", "c", "a"]  # 22.5 is beyond the stack: all-in only
    assert codes(g, ["a"]) == ["f", "c"]
    assert g.player(()) == 0 and g.player(("c",)) == 1 and g.player(("c", "r3")) == 0
    # the big blind draws first, then the button, then the big blind bets first: pot 5, bets 2.5 and 5
    assert codes(g, ["r2.5", "c"]) == ["d0", "d1"] and g.player(("r2.5", "c")) == 1
    assert g.player(("r2.5", "c", "d1")) == 0
    post = ("r2.5", "c", "d1", "d0")
    assert codes(g, post) == ["k", "b2.5", "b5", "a"] and g.player(post) == 1
    assert codes(g, [*post, "k"]) == ["k", "b2.5", "b5", "a"] and g.player((*post, "k")) == 0
    assert codes(g, [*post, "b2.5"]) == ["f", "c", "a"]  # a raise to 3x the round's bet (7.5) is 10 in all
    assert codes(game("nl27(stacks=20)"), [*post, "b2.5"]) == ["f", "c", "r7.5", "a"]
    # after a pre-draw all-in and call, both draw and then show down: no betting
    assert codes(g, ["a", "c"]) == ["d0", "d1"] and codes(g, ["a", "c", "d0", "d1"]) == []


def test_payoffs_after_each_kind_of_line():
    g = game("nl27(stacks=10)")
    assert g.terminal_payoff(("f",)) == ("fold", pytest.approx([-0.5]))
    assert g.terminal_payoff(("r2.5", "f"))[1] == pytest.approx([1.0])
    assert g.terminal_payoff(("c", "r3", "f"))[1] == pytest.approx([-1.0])
    assert g.terminal_payoff(("r2.5", "r7.5", "f"))[1] == pytest.approx([-2.5])
    assert g.terminal_payoff(("r2.5", "r7.5", "a", "f"))[1] == pytest.approx([7.5])
    assert g.terminal_payoff(("a", "c", "d0", "d1")) == ("showdown", pytest.approx([10.0]))
    assert g.terminal_payoff(("r2.5", "c", "d1", "d0", "k", "k"))[1] == pytest.approx([2.5])
    assert g.terminal_payoff(("r2.5", "c", "d1", "d0", "b5", "c"))[1] == pytest.approx([7.5])
    assert g.terminal_payoff(("r2.5", "c", "d1", "d0", "b5", "f"))[1] == pytest.approx([-2.5])  # the button folds
    deep = game("nl27(stacks=20)")
    assert deep.terminal_payoff(("r2.5", "c", "d1", "d0", "k", "b2.5", "r7.5", "f"))[1] == pytest.approx([-5.0])


def test_the_cap_counts_every_raise_and_all_in():
    g = game("nl27(stacks=100,cap=2)")
    assert codes(g, ["r2.5", "r7.5"]) == ["f", "c"]  # the open and the 3-bet: capped
    assert codes(g, ["c", "r3", "r9"]) == ["f", "c"]
    assert codes(g, ["c", "a"]) == ["f", "c"]
    one = game("nl27(stacks=100,cap=1)")
    assert codes(one, ["r2.5"]) == ["f", "c"]
    post = ("c", "k", "d0", "d0")
    assert codes(one, [*post, "b1"]) == ["f", "c"]  # the first bet after the draw counts too


def test_sizes_a_stack_cannot_make_collapse_into_the_all_in():
    g = game("nl27(stacks=2:10:4,open=2.5/4)")  # stacks 2, 6, 10
    assert codes(g, []) == ["f", "c", "r2.5", "r4", "a"]
    legal = g.variant_legal(())
    assert legal.tolist() == [[True, True, False, False, True], [True] * 5, [True] * 5]
    assert g.variant_legal(("r2.5",)).tolist() == [[True, True, False, True], [True, True, False, True],
                                                   [True, True, True, True]]  # 7.5 only at 10
    layout = Layout(g)
    uniform = layout.uniform_strategy()
    row = layout.label_index["2|"]
    assert uniform[0, row].tolist() == [pytest.approx(1 / 3), pytest.approx(1 / 3), 0, 0, pytest.approx(1 / 3)]
    # the all-in is what each stack puts in
    assert g.terminal_payoff(("a", "f"))[1] == pytest.approx([1, 1, 1])
    assert g.terminal_payoff(("a", "c", "d0", "d0"))[1] == pytest.approx([2, 6, 10])


def test_observations_show_the_opponents_draw_as_a_count():
    g = game("nl27(ranks=8,suits=1,hand=2,stacks=10)")
    history = ("c", "k", "d3", "d1")
    assert g.observation(history[:3], 0) == "c-k-n2"
    assert g.observation(history, 1) == "c-k-d3-n1" and g.observation(history, 0) == "c-k-n2-d1"
    labels = g.private_labels(history, 1)
    assert len(labels) == math.comb(8, 2) * math.comb(6, 2) and labels[0] == "32+54"


# ---- the push/fold identity -----------------------------------------------------------------------
def _draw27_label(label):
    private, observation = label.split("|")
    return private + "|" + "".join(part[1] if part[0] in "dn" else part for part in observation.split("-") if part)


@pytest.mark.parametrize("deck", ["ranks=6,suits=1,hand=1", "ranks=4,suits=2,hand=2"])
def test_push_fold_nl27_is_draw27_for_any_profile(deck):
    stacks = "1.5:4:0.5"
    d = Layout(game(f"draw27({deck},stacks={stacks})"))
    n = Layout(game(f"nl27({deck},stacks={stacks},open=none,limp=0,bet=none,cap=1)"))
    index = [d.label_index[_draw27_label(label)] for label in n.labels]
    assert sorted(index) == list(range(d.n_infosets))
    rng = np.random.default_rng(3)
    probs = rng.random((n.n_variants, n.n_infosets, n.max_actions)) * n.variant_mask
    probs /= probs.sum(axis=-1, keepdims=True)
    mapped = np.zeros_like(probs)
    mapped[:, index] = probs
    a, b = distcfr.Strategy(d, mapped), distcfr.Strategy(n, probs)
    assert np.abs(a.value_per_variant - b.value_per_variant).max() < 1e-12
    assert np.abs(a.best_response_per_variant - b.best_response_per_variant).max() < 1e-12
    solved = [distcfr.Solver(layout.game, algorithm="cfr+").solve(iterations=400) for layout in (d, n)]
    bound = max(s.exploitability() for s in solved)
    assert bound < 1e-3
    assert np.abs(solved[0].value_per_variant - solved[1].value_per_variant).max() <= 2 * bound


def test_range_pass_equals_the_deal_pass_for_the_cfr_sums():
    deck = "ranks=5,suits=2,hand=1"
    d = distcfr.Solver(game(f"draw27({deck},stacks=3)"))
    n = distcfr.Solver(game(f"nl27({deck},stacks=3,open=none,limp=0,bet=none,cap=1)"))
    index = [d.layout.label_index[_draw27_label(label)] for label in n.layout.labels]
    rng = np.random.default_rng(0)
    probs = rng.random(n.sigma.shape) * n.layout.variant_mask
    probs /= probs.sum(axis=-1, keepdims=True)
    mapped = np.zeros_like(d.sigma)
    mapped[:, index] = probs
    for p in (0, 1):
        q_deal, _ = d.shards.cfr_sums(mapped, (p,))[p]
        q_range, _ = n.shards.cfr_sums(probs, (p,))[p]
        rows = n.layout.player_rows[p]
        order = [d.layout.label_index[_draw27_label(label)] - d.layout.player_rows[p].start
                 for label in n.layout.labels[rows]]
        assert np.abs(q_deal[:, order] - q_range).max() < 1e-12


# ---- solving ---------------------------------------------------------------------------------------
def test_exploitability_goes_to_zero_and_the_game_is_zero_sum():
    solver = distcfr.Solver(game(SMALL))
    first = solver.solve(iterations=20).exploitability()
    strategy = solver.solve(iterations=500)
    assert strategy.exploitability() < min(1e-3, first / 20)
    br0, br1 = strategy.best_response_values()
    assert br0 >= strategy.value() - 1e-12 and br1 >= -strategy.value() - 1e-12


def test_shards_and_resume_are_bitwise(tmp_path):
    spec = TWO_CARD
    one, three = distcfr.Solver(game(spec), shards=1), distcfr.Solver(game(spec), shards=3)
    rng = np.random.default_rng(1)
    probs = rng.random(one.sigma.shape) * one.layout.variant_mask
    probs /= probs.sum(axis=-1, keepdims=True)
    for p in (0, 1):  # the same sums whatever the cut (to rounding: a tree sum in another order)
        (q1, r1), (q3, r3) = one.shards.cfr_sums(probs, (p,))[p], three.shards.cfr_sums(probs, (p,))[p]
        assert np.abs(q1 - q3).max() < 1e-12 and np.abs(r1 - r3).max() < 1e-12
    assert abs(one.evaluator.exploitability(probs) - three.evaluator.exploitability(probs)).max() < 1e-12
    three = three.solve(iterations=8)
    first = distcfr.Solver(game(spec), shards=3)
    first.solve(iterations=3)
    first.checkpoint().save(tmp_path / "n.ckpt")
    again = distcfr.Solver.from_checkpoint(Checkpoint.load(tmp_path / "n.ckpt"))
    assert again.solve(iterations=8).probs.tobytes() == three.probs.tobytes()


@pytest.mark.slow
def test_strategy_files_bitwise_equal_on_0_1_2_3_workers(ray_local, tmp_path):
    files = []
    for workers in (0, 1, 2, 3):
        out = tmp_path / f"w{workers}.msgpack"
        assert main(["--quiet", "--no-tables", "--out", str(out), "--game", TWO_CARD, "--workers", str(workers),
                     "--shards", "4", "--iterations", "6"]) == 0
        files.append(out.read_bytes())
    assert all(f == files[0] for f in files[1:])


# ---- bad specs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, words", [
    ("nl27(open=1.5)", "below the minimum raise"),
    ("nl27(raise=1.5)", "raise must be at least 2"),
    ("nl27(cap=0)", "cap"),
    ("nl27(bet=0)", "above 0"),
    ("nl27(bet=-0.5/1)", "above 0"),
    ("nl27(open=2.5;4)", "separated by '/'"),
    ("nl27(open=2.5/x)", "separated by '/'"),
    ("nl27(stacks=1)", "more than the big blind"),
    ("nl27(stacks=0.5:3:0.5)", "more than the big blind"),
    ("nl27(limp=2)", "limp is 0"),
    ("nl27(ranks=3,hand=1)", "too small"),
])
def test_bad_specs_are_refused_in_one_line(spec, words, capsys):
    with pytest.raises(BadParameter, match=words):
        game(spec)
    assert main(["--game", spec, "--iterations", "1", "--workers", "0", "--no-tables"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("spec, words", [
    ("nl27(ranks=13,suits=4,hand=5)", "private states"),
    ("nl27(ranks=13,suits=2,hand=1,stacks=1.5:300:0.5)", "table cells"),
])
def test_games_beyond_the_exact_solver_are_refused_by_it_in_one_line(spec, words):
    """train samples them instead (tests/test_sampled_nl27.py); the exact solver says why it cannot."""
    from distcfr.solve.solver import Solver

    assert words in game(spec).exact_size_problem()
    with pytest.raises(BadParameter, match=words):
        Solver(game(spec))

import dataclasses

import numpy as np
import pytest
from reference_sampled import solve_sampled

import distcfr.engine.sampled_bracket as sampled_bracket
from distcfr.engine.sampled_bracket import (
    FOCUS_MIN_CUT,
    GATE_Z,
    REFINE,
    BracketSums,
    ChunkSums,
    best_response,
    bracket_chunk,
    bracket_chunks,
    class_moments,
    close_classes,
    focus_chunk,
    focus_plan,
    refine_deals,
)
from distcfr.engine.sampled_draw27 import SampledDraw27, to_exact_strategy
from distcfr.evaluate.sampled import exploitability_bracket
from distcfr.evaluate.strategy import Strategy

SEEDS = 10


def same(a: BracketSums, b: BracketSums, *names: str) -> bool:
    """Whether two players' bracket sums have the same bits in ``names`` (all fields without)."""
    names = names or tuple(f.name for f in dataclasses.fields(BracketSums))
    return all(getattr(a, n).tobytes() == getattr(b, n).tobytes() for n in names)


@pytest.fixture(scope="module")
def solved():
    """A short sampled solve of a tiny deck (stacks 2 and 5 BB) and its exact exploitability."""
    game = SampledDraw27(6, 2, 2, stacks=(2.0, 5.0))
    avg = solve_sampled(6, 2, 2, (2.0, 5.0), 60, 200, seed=3)
    return game, avg, Strategy(*to_exact_strategy(game, avg)).exploitability_per_variant()


def responded(game, sigma, player, first, stop, per_class):
    profile = {name: table.copy() for name, table in sigma.items()}
    deals = game.sample_deals_of_classes(8, 2 * player, player, first, stop, per_class)
    best_response(game, profile, deals, player)
    return profile, deals


def two_pass_best_response(game, profile, deals, player):
    """The best response block by block, class sums computed again after the draws are chosen."""
    ids = game.classes.classify(deals[:, player * game.hand:(player + 1) * game.hand])[0]
    held, counts = np.unique(ids, return_counts=True)
    for name in game.response_order[player]:
        q = game.class_sums(profile, deals, player, counts)[name].q
        profile[name][held] = (np.arange(q.shape[-1]) == q.argmax(-1)[..., None])


@pytest.mark.parametrize("dims", [(6, 2, 2), (8, 2, 3), (13, 4, 5)])
def test_one_pass_best_response_is_the_two_pass_one(dims):
    game = SampledDraw27(*dims, stacks=(2.0, 5.0))
    rng = np.random.default_rng(1)
    sigma = {b.name: rng.dirichlet(np.full(b.n_actions, 0.3), (game.n_classes, *b.shape[:-1]))
             for b in game.strategy_tables}
    for player in (0, 1):
        deals = game.sample_deals_of_classes(3, 0, player, 0, min(40, game.n_classes), 50)
        one, two = ({name: table.copy() for name, table in sigma.items()} for _ in range(2))
        best_response(game, one, deals, player)
        two_pass_best_response(game, two, deals, player)
        for name in game.response_order[player]:
            assert np.array_equal(one[name], two[name]), (player, name)
            assert not np.array_equal(one[name], sigma[name])


@pytest.mark.parametrize("player", [0, 1])
def test_close_classes_and_their_deals_do_not_depend_on_the_grouping(solved, player):
    game, avg, _ = solved
    per_class, first, stop = 200, 0, 12
    profile, deals = responded(game, avg, player, first, stop, per_class)
    close = close_classes(game, profile, deals, player, per_class)
    assert close.dtype == bool and 0 < close.sum() < len(close)  # some classes close, some clear
    cut = 5 * per_class
    parts = [close_classes(game, profile, deals[:cut], player, per_class),
             close_classes(game, profile, deals[cut:], player, per_class)]
    assert np.array_equal(np.concatenate(parts), close)
    more = refine_deals(game, 8, player, first, close, 50)
    assert more.shape == (50 * close.sum(), 4 * game.hand)
    ids, _ = game.classes.classify(more[:, player * game.hand:(player + 1) * game.hand])
    assert np.array_equal(ids, np.repeat(np.flatnonzero(close) + first, 50))
    split = [refine_deals(game, 8, player, first, close[:5], 50),
             refine_deals(game, 8, player, first + 5, close[5:], 50)]
    assert np.array_equal(np.concatenate(split), more)
    assert np.array_equal(refine_deals(game, 8, player, first, close, 50), more)


def test_every_class_is_close_to_itself_on_a_uniform_profile():
    game = SampledDraw27(6, 2, 2, stacks=(2.0,))
    sigma = game.uniform(np.float64)
    profile, deals = responded(game, sigma, 0, 0, 6, 100)
    assert close_classes(game, profile, deals, 0, 100, z=1e9).all()
    assert not close_classes(game, profile, deals, 0, 100, z=-1e9).any()


def test_a_chunk_is_the_same_bits_again_and_its_classes_add_up(solved):
    game, avg, _ = solved
    per_class = 300
    for player in (0, 1):
        whole = bracket_chunk(game, avg, 5, per_class, player, 0, game.n_classes).sums
        assert same(whole, bracket_chunk(game, avg, 5, per_class, player, 0, game.n_classes).sums)
        extra = whole.refined_deals[0]
        assert extra > 0 and extra % (REFINE * per_class) == 0  # some classes refined, REFINE x n each
        plain = bracket_chunk(game, avg, 5, per_class, player, 0, game.n_classes, refine=0).sums
        assert plain.refined_deals[0] == 0 and same(plain, whole, "value", "value_var")  # the same deals
    assert len(bracket_chunks(game, per_class)) == 1


def test_a_further_round_refines_the_classes_still_close(solved):
    game, avg, _ = solved
    per_class = 300
    for player in (0, 1):
        one, two = (bracket_chunk(game, avg, 5, per_class, player, 0, game.n_classes, rounds=r).sums for r in (1, 2))
        first = one.refined_deals[0]
        assert first > 0 and first % (REFINE * per_class) == 0
        second = two.refined_deals[0] - first  # REFINE x (1 + REFINE) x n for each class still close
        assert second > 0 and second % (REFINE * (1 + REFINE) * per_class) == 0 and second < first * (1 + REFINE)
        assert same(two, one, "value", "value_var") and not same(two, one, "high", "high_var")
        assert same(two, bracket_chunk(game, avg, 5, per_class, player, 0, game.n_classes, rounds=2).sums)


def test_a_deal_of_several_stubs_is_worth_the_mean_of_its_stubs():
    game = SampledDraw27(8, 2, 3, stacks=(2.0, 5.0))
    rng = np.random.default_rng(1)
    sigma = {b.name: rng.dirichlet(np.full(b.n_actions, 0.3), (game.n_classes, *b.shape[:-1]))
             for b in game.strategy_tables}
    h = game.hand
    for player in (0, 1):
        deals = game.sample_deals_of_classes(3, 0, player, 0, 40, 20, stubs=4)
        assert deals.shape == (800, 2 * h * 5)
        each = [game.deal_values(sigma, np.concatenate([deals[:, :2 * h], deals[:, 2 * h * (1 + s):2 * h * (2 + s)]],
                                                       axis=1)) for s in range(4)]
        assert not np.allclose(each[0], each[1])  # the stubs differ
        np.testing.assert_allclose(game.deal_values(sigma, deals), np.mean(each, axis=0), rtol=0, atol=1e-12)


def test_brackets_of_several_stubs_a_deal_hold_the_exact_exploitability_and_are_tighter(solved):
    game, avg, exact = solved
    got = {stubs: [exploitability_bracket(game, avg, seed, 100, stubs=stubs, focus_share=0) for seed in range(SEEDS)]
           for stubs in (1, 4)}
    inside = [((b.interval()[0] <= exact) & (exact <= b.interval()[1])).all() for b in got[4]]
    assert sum(inside) >= SEEDS - 1, (exact, [b.interval() for b in got[4]])
    high = {stubs: np.mean([b.high for b in brackets], axis=0) for stubs, brackets in got.items()}
    se = np.sqrt(np.sum([b.high_se**2 for b in got[4]], axis=0)) / SEEDS
    assert (high[4] >= exact - 3 * se).all(), (high, exact, se)  # still an upper estimate in expectation
    assert (high[4] < high[1]).all(), (high, exact)  # less of the optimizer's curse at the same deals


def test_the_interval_holds_the_exact_exploitability_and_refinement_tightens_it(solved):
    game, avg, exact = solved
    settings = [(0, 1), (REFINE, 1), (REFINE, 2)]  # refinement factor, rounds
    brackets = {(refine, rounds): [exploitability_bracket(game, avg, seed, 200, refine=refine, rounds=rounds,
                                                         focus_share=0)
                                   for seed in range(SEEDS)] for refine, rounds in settings}
    for setting, got in brackets.items():
        inside = [((b.interval()[0] <= exact) & (exact <= b.interval()[1])).all() for b in got]
        assert sum(inside) >= SEEDS - 1, (setting, exact, [b.interval() for b in got])
        # the upper estimate is an upper bound in expectation: its mean over the seeds is not below the
        # exact exploitability by more than the mean's standard error allows
        high = np.mean([b.high for b in got], axis=0)
        se = np.sqrt(np.sum([b.high_se**2 for b in got], axis=0)) / SEEDS
        assert (high >= exact - 3 * se).all(), (setting, high, exact, se)
    mean_high = [np.mean([b.high for b in brackets[setting]], axis=0) for setting in settings]
    assert (mean_high[2] < mean_high[1]).all() and (mean_high[1] < mean_high[0]).all(), mean_high
    deals = [[b.extra_deals for b in brackets[setting]] for setting in settings]
    assert not any(deals[0]) and all(0 < one < two for one, two in zip(deals[1], deals[2]))


def test_the_scored_response_keeps_the_profile_where_its_gain_is_not_shown(solved):
    game, avg, exact = solved
    never = exploitability_bracket(game, avg, 4, 200, gate=np.inf)  # the response is the profile itself
    assert not never.low.any() and not never.low_se.any()
    got = {gate: [exploitability_bracket(game, avg, seed, 200, gate=gate) for seed in range(SEEDS)]
           for gate in (-np.inf, GATE_Z)}
    for gate, brackets in got.items():
        inside = [((b.interval()[0] <= exact) & (exact <= b.interval()[1])).all() for b in brackets]
        assert sum(inside) >= SEEDS - 1, (gate, exact, [b.interval() for b in brackets])
        low = np.mean([b.low for b in brackets], axis=0)
        se = np.sqrt(np.sum([b.low_se**2 for b in brackets], axis=0)) / SEEDS
        assert (low <= exact + 3 * se).all(), (gate, low, exact, se)  # a real strategy's gain: a lower estimate
    for ungated, gated in zip(*got.values()):
        assert np.array_equal(ungated.high, gated.high)  # the gate leaves the upper estimate alone
    # a class's response only where it showed a gain: far less noise, a lower end above zero
    low_se = {gate: np.mean([b.low_se for b in brackets], axis=0) for gate, brackets in got.items()}
    assert (low_se[GATE_Z] < low_se[-np.inf] / 3).all(), low_se
    low_end = {gate: np.mean([b.interval()[0] for b in brackets], axis=0) for gate, brackets in got.items()}
    assert (low_end[GATE_Z] > low_end[-np.inf]).all() and (low_end[GATE_Z] > 0).all(), low_end


@pytest.fixture(scope="module")
def solved_with_latest():
    """A short sampled solve of a tiny deck, its latest iterate, and the exact gain of that iterate as each
    player's response to the average (button payoff) beside the exact exploitability."""
    from distcfr.evaluate.class_strategy import ClassStrategy
    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver

    game = load_game("draw27(ranks=6,suits=2,hand=2,stacks=2:5:3)")
    solver = SampledSolver(game, batch=400, seed=3, shards=2)
    avg = solver.solve(60)
    latest = solver.latest_strategy()
    value = avg.to_exact().value_per_variant
    gains = []
    for player in (0, 1):
        mine = {b.name for b in avg.kernel.strategy_tables if b.player == player}
        profile = {name: (latest[name] if name in mine else table).astype(np.float64)
                   for name, table in avg.tables.items()}
        gains.append((1 - 2 * player) * (ClassStrategy(game, profile).to_exact().value_per_variant - value))
    return avg, latest, np.array(gains), avg.exact_exploitability()


def test_the_latest_iterate_scored_as_a_response_is_unbiased(solved_with_latest):
    avg, latest, gains, exact = solved_with_latest
    kernel = avg.kernel
    for player in (0, 1):
        sums = [bracket_chunk(kernel, avg.tables, seed, 4000, player, 0, kernel.n_classes, refine=0, latest=latest).sums
                for seed in range(SEEDS)]
        estimate = (1 - 2 * player) * np.mean([s.latest for s in sums], axis=0)  # in the player's own payoff
        se = np.sqrt(np.sum([s.latest_var for s in sums], axis=0)) / SEEDS
        assert (se > 0).all() and (np.abs(estimate - gains[player]) < 4 * se).all(), (player, estimate, gains, se)
        assert (gains[player] > 4 * se).any()  # it gains more than the noise: an estimate of 0 would fail
        plain = bracket_chunk(kernel, avg.tables, 0, 4000, player, 0, kernel.n_classes, refine=0).sums
        before = ("high", "high_var", "low", "low_var", "value", "value_var", "refined_deals")
        assert same(plain, sums[0], *before)  # it changes nothing else
        assert not any(getattr(plain, name).any() for name in ("latest", "latest_var", "focus_deals"))


def test_the_interval_with_the_latest_iterate_holds_the_exact_exploitability(solved_with_latest):
    avg, latest, gains, exact = solved_with_latest
    for seed in range(SEEDS):
        both, alone = avg.bracket(200, seed=seed, latest=latest), avg.bracket(200, seed=seed)
        low, high = both.interval()
        assert (low <= exact).all() and (exact <= high).all(), (seed, low, high, exact)
        assert np.array_equal(high, alone.interval()[1]) and alone.latest_low is None  # the upper end is the same
        # the lower end is the larger of the two lower estimates, each less 2.241 of its standard errors
        assert np.array_equal(low, np.maximum(np.maximum(both.low - 2.241 * both.low_se,
                                                         both.latest_low - 2.241 * both.latest_low_se), 0))


def test_the_focus_round_goes_to_the_classes_whose_gain_is_least_certain():
    def candidates(spread, pilot=None):
        spread = np.array(spread, float)
        k = len(spread)
        return ChunkSums(BracketSums.zeros(1), np.arange(10, 10 + k), spread, np.zeros((k, 1)), np.zeros((k, 1)),
                         float((spread**2).sum()) if pilot is None else pilot)

    # one class holds nearly all the spread: it gets the whole budget (100 deals a class so far)
    assert focus_plan(candidates([1.0, 0.01, 0.01]), 10_000, 100, 100) == ([10], 10_000)
    # two alike: both, half each (2 x (1/100 - 1/5,000) beats 1/100 - 1/10,000)
    classes, deals = focus_plan(candidates([1.0, 1.0]), 10_000, 100, 100)
    assert list(classes) == [10, 11] and deals == 5_000
    # never fewer deals than a class's estimate may have had (here 2,500): at most 4 classes of 10,000
    classes, deals = focus_plan(candidates(np.full(8, 1.0)), 10_000, 100, 2_500)
    assert list(classes) == [10, 11, 12, 13] and deals == 2_500
    # where the cut is under FOCUS_MIN_CUT of the variance the spreads tell (classes beyond the candidates): none
    classes, deals = focus_plan(candidates([1.0], pilot=1.01 / FOCUS_MIN_CUT), 10_000, 100, 100)
    assert not len(classes) and deals == 0
    assert focus_plan(candidates([1.0], pilot=0.99 / FOCUS_MIN_CUT), 10_000, 100, 100)[1] == 10_000


def test_a_focus_chunk_in_pieces_is_the_class_chosen_again_on_all_its_deals(solved, monkeypatch):
    game, avg, _ = solved
    monkeypatch.setattr(sampled_bracket, "FOCUS_PIECE", 70)  # 300 deals: pieces of 70, 70, 70, 70, 20
    weights = game.classes.hands_per_class / game.classes.hands_per_class.sum()
    for player, c in ((0, 3), (1, 7)):
        got = focus_chunk(game, avg, 5, 300, player, c, c + 1)
        stream = sampled_bracket.FOCUS_STREAM + player
        deals = np.concatenate([game.sample_class_deals(5, (1, stream + 2 * i, c), player, c, np.array([n]))
                                for i, n in enumerate([70] * 4 + [20])])
        profile = {name: table.copy() for name, table in avg.items()}
        best_response(game, profile, deals, player)
        mean, var = class_moments(game.deal_values(profile, deals) - game.deal_values(avg, deals), 300)
        np.testing.assert_allclose(got, [weights[c] * mean[0], weights[c] ** 2 * var[0]], rtol=1e-9, atol=1e-15)
        assert (got[1] > 0).all()
        two = focus_chunk(game, avg, 5, 300, player, c, c + 2)  # a class's part is its own, in any chunk
        np.testing.assert_array_equal(two, got + focus_chunk(game, avg, 5, 300, player, c + 1, c + 2))


def test_the_focus_round_narrows_the_interval_and_it_still_holds_the_exact_exploitability(solved):
    game, avg, exact = solved
    got = {share: [exploitability_bracket(game, avg, seed, 100, focus_share=share) for seed in range(SEEDS)]
           for share in (0, 8)}
    for share, brackets in got.items():
        inside = [((b.interval()[0] <= exact) & (exact <= b.interval()[1])).all() for b in brackets]
        assert sum(inside) >= SEEDS - 1, (share, exact, [b.interval() for b in brackets])
        high = np.mean([b.high for b in brackets], axis=0)
        se = np.sqrt(np.sum([b.high_se**2 for b in brackets], axis=0)) / SEEDS
        assert (high >= exact - 3 * se).all(), (share, high, exact, se)  # still an upper estimate in expectation
    for plain, focused in zip(*got.values()):
        assert focused.focus_deals > 0 == plain.focus_deals and focused.extra_deals == plain.extra_deals
        assert np.array_equal(plain.low, focused.low) and np.array_equal(plain.value, focused.value)
    upper = {share: np.mean([b.interval()[1] for b in brackets], axis=0) for share, brackets in got.items()}
    se = {share: np.mean([b.high_se for b in brackets], axis=0) for share, brackets in got.items()}
    assert (se[8] < se[0]).all() and (upper[8] < upper[0]).all(), (se, upper, exact)

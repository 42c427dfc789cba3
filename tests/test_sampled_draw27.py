import itertools
import math
from functools import reduce
from operator import add

import numpy as np
import pytest
from reference_sampled import (
    cfr_values,
    chunk_values,
    fixed_point_bits,
    showdown_chunks,
    solve_sampled,
    stub_mean_values,
)

from distcfr.cards import lowball27_rank, parse
from distcfr.engine.sampled_draw27 import SampledDraw27, exact_masks, to_exact_strategy
from distcfr.errors import BadParameter
from distcfr.evaluate.sampled import exploitability_bracket
from distcfr.evaluate.strategy import Strategy
from distcfr.games.draw_equity import showdown_equity

Z = 4.5  # tolerance in standard errors for sampled means (fixed seeds: a failure is a real shift)


@pytest.fixture(scope="module")
def full():
    return SampledDraw27(13, 4, 5, stacks=(2.0, 7.5))


def brute_w(game: SampledDraw27, deal) -> np.ndarray:
    """W[m1, m2] of one deal from its literal cards: the big blind draws the top |m2| stub cards, the
    button the next |m1|; masks index each hand's canonical order."""
    h = game.hand
    _, can1 = game.classes.classify(np.array([deal[:h]]))
    _, can2 = game.classes.classify(np.array([deal[h:2 * h]]))
    stub = list(deal[2 * h:])
    finals1, finals2 = [], []
    for m1, m2 in itertools.product(range(1 << h), repeat=2):
        keep1 = [c for j, c in enumerate(can1[0].tolist()) if not m1 >> j & 1]
        keep2 = [c for j, c in enumerate(can2[0].tolist()) if not m2 >> j & 1]
        k1, k2 = h - len(keep1), h - len(keep2)
        finals1.append(keep1 + stub[k2:k2 + k1])
        finals2.append(keep2 + stub[:k2])
    r1, r2 = lowball27_rank(np.array(finals1)), lowball27_rank(np.array(finals2))
    return np.sign(r2 - r1).reshape(1 << h, 1 << h)


@pytest.mark.parametrize("ranks,suits,hand", [(13, 4, 5), (13, 4, 2), (8, 2, 3)])
def test_showdown_matrix_matches_brute_force(ranks, suits, hand):
    game = SampledDraw27(ranks, suits, hand)
    deals = game.sample_deals(5, 0, 0, 6)
    w = game.showdown_matrix(deals)
    assert w.dtype == np.int8 and w.shape == (6, 1 << hand, 1 << hand)
    for d in range(6):
        assert np.array_equal(w[d], brute_w(game, deals[d].tolist())), d


def random_sigma(game: SampledDraw27, rng, dtype=np.float64) -> dict:
    out = {}
    for b in game.strategy_tables:
        x = rng.random((game.n_classes, *b.shape), dtype=dtype)
        x *= x  # skewed, never exactly 0
        out[b.name] = x / x.sum(-1, keepdims=True)
    return out


def brute_values(game: SampledDraw27, sigma, deals) -> dict:
    """Per block, class -> (summed Q, summed reach) from the formulas, deal by deal, stack by stack."""
    h, m = game.hand, game.n_masks
    size = [bin(x).count("1") for x in range(m)]
    sums = {}

    def add(name, c, q, reach):
        old = sums.setdefault(name, {}).get(c, (0.0, 0.0))
        sums[name][c] = (old[0] + np.array(q), old[1] + np.array(reach))

    for deal in deals.tolist():
        w = brute_w(game, deal)
        c1 = int(game.classes.classify(np.array([deal[:h]]))[0][0])
        c2 = int(game.classes.classify(np.array([deal[h:2 * h]]))[0][0])
        q_push, q_draw1, q_call, q_draw2, reach = [], [], [], [], []
        for b, s in enumerate(game.stacks.tolist()):
            p, q = sigma["btn_push"][c1, b, 1], sigma["bb_call"][c2, b, 1]
            d1, d2 = sigma["btn_draw"][c1, :, b], sigma["bb_draw"][c2, b]
            a = [s * sum(d1[size[m2], m1] * w[m1, m2] for m1 in range(m)) for m2 in range(m)]
            v2 = sum(d2[m2] * a[m2] for m2 in range(m))
            q_push.append([-0.5, q * v2 + (1 - q)])
            q_call.append([-p, -p * v2])
            q_draw2.append([-p * a[m2] for m2 in range(m)])
            q_draw1.append([[sum(q * d2[m2] * s * w[m1, m2] for m2 in range(m) if size[m2] == k)
                             for m1 in range(m)] for k in range(h + 1)])
            reach.append((p, q))
        reach = np.array(reach)  # (B, 2) own reach of the button's and the big blind's draws
        ones = np.ones(len(game.stacks))
        add("btn_push", c1, q_push, ones)
        add("btn_draw", c1, np.array(q_draw1).transpose(1, 0, 2), np.tile(reach[:, 0], (h + 1, 1)))
        add("bb_call", c2, q_call, ones)
        add("bb_draw", c2, q_draw2, reach[:, 1])
    return sums


@pytest.mark.parametrize("ranks,suits,hand,n", [(13, 4, 2, 40), (6, 2, 2, 60), (13, 4, 5, 3)])
def test_cfr_values_match_brute_force(ranks, suits, hand, n):
    game = SampledDraw27(ranks, suits, hand, stacks=(1.5, 4.0))
    sigma = random_sigma(game, np.random.default_rng(1))
    deals = game.sample_deals(9, 2, 3, n)
    got = cfr_values(game, sigma, deals)
    want = brute_values(game, sigma, deals)
    assert set(got) == set(want)
    for name, sums in got.items():
        assert set(want[name]) <= set(sums.rows.tolist())  # every class the deals hold (all when most are)
        for i, c in enumerate(sums.rows.tolist()):
            q, reach = want[name].get(c, (0.0, 0.0))  # a class no deal holds sums to zero
            np.testing.assert_allclose(sums.q[i], q, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(sums.reach[i], reach, rtol=1e-6)
    one = cfr_values(game, sigma, deals, players=(1,))
    assert set(one) == {"bb_call", "bb_draw"}  # its deals sorted by the big blind's class: another order of sums
    np.testing.assert_allclose(one["bb_draw"].q, got["bb_draw"].q, rtol=1e-12, atol=1e-12)


def test_showdown_expectation_matches_exact_equity():
    """Mean of W over random stub orders of fixed hands = draw_equity's exact expectation."""
    game = SampledDraw27(8, 2, 3)
    rng = np.random.default_rng(7)
    deck, n = game.classes.deck, 6000
    for h1, h2 in [(parse("5c4d2c"), parse("8d7c3d")), (parse("9c7d6c"), parse("4c4d3c"))]:
        rest = np.setdiff1d(deck, np.r_[h1, h2])
        stubs = np.array([rng.permutation(rest)[:6] for _ in range(n)])
        deals = np.concatenate([np.tile(h1, (n, 1)), np.tile(h2, (n, 1)), stubs], axis=1)
        w = game.showdown_matrix(deals).astype(np.float64)  # (n, M, M) canonical masks
        e1, e2 = exact_masks(game, h1[None])[0], exact_masks(game, h2[None])[0]
        w_exact = np.empty_like(w)
        w_exact[:, e1[:, None], e2[None, :]] = w  # canonical masks -> ascending-card masks
        exact = showdown_equity(np.sort(h1)[None], np.sort(h2)[None], deck)[:, :, 0]
        mean, se = w_exact.mean(0), w_exact.std(0, ddof=1) / math.sqrt(n)
        assert (np.abs(mean - exact) <= Z * se + 1e-12).all()
        assert (se > 0).sum() > 20  # most mask pairs are genuinely random


def test_deals_are_valid_uniform_and_reproducible():
    game = SampledDraw27(13, 4, 5)
    deals = game.sample_deals(11, 3, 4, 20000)
    assert deals.shape == (20000, 20) and deals.min() >= 0 and deals.max() < 52
    ordered = np.sort(deals, axis=1)
    assert (ordered[:, 1:] != ordered[:, :-1]).all()  # 20 distinct cards: no replacement
    for col in (0, 7, 19):  # every position is uniform over the 52 cards
        counts = np.bincount(deals[:, col], minlength=52)
        expected = len(deals) / 52
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 51 + Z * math.sqrt(2 * 51)
    assert np.array_equal(deals, game.sample_deals(11, 3, 4, 20000))
    assert not np.array_equal(deals[:100], game.sample_deals(11, 4, 4, 100))
    assert not np.array_equal(deals[:100], game.sample_deals(11, 3, 5, 100))


def test_cfr_values_bitwise_reproducible(full):
    sigma = random_sigma(full, np.random.default_rng(2), np.float32)
    a = cfr_values(full, sigma, full.sample_deals(3, 1, 8, 3000))
    b = cfr_values(full, sigma, full.sample_deals(3, 1, 8, 3000))
    for name in a:
        assert np.array_equal(a[name].rows, b[name].rows)
        assert a[name].q.tobytes() == b[name].q.tobytes() and a[name].reach.tobytes() == b[name].reach.tobytes()


def test_pat_low_frequencies(full):
    """Dealt pat 9-low or better is 2.0% of hands, J-low or better 9.7% (pokerkit-checked)."""
    classes = full.classes
    ranks = lowball27_rank(classes.representative(np.arange(classes.n_classes)))
    for worst, percent in [("9s8h7d6c4c", 2.0), ("JsTh9d8c6c", 9.7)]:
        share = classes.hands_per_class[ranks <= lowball27_rank(parse(worst)[None])[0]].sum() / math.comb(52, 5)
        assert round(100 * share, 1) == percent


def deals_with(game, hand: str, seat: int, n: int, seed: int) -> np.ndarray:
    """n deals giving ``hand`` to ``seat`` (0 button, 1 big blind), the rest at random."""
    rng = np.random.default_rng(seed)
    fixed = parse(hand)
    out = []
    for _ in range(n):
        rest = rng.permutation(np.setdiff1d(game.classes.deck, fixed))
        hands = [fixed, rest[:5]] if seat == 0 else [rest[:5], fixed]
        out.append(np.concatenate([*hands, rest[5:15]]))
    return np.array(out)


def test_nut_low_never_loses(full):
    w = full.showdown_matrix(deals_with(full, "7c5d4h3s2c", 0, 3000, 0))
    assert (w[:, 0, :] >= 0).all() and (w[:, 0, :] > 0).mean() > 0.99
    w = full.showdown_matrix(deals_with(full, "7d5c4s3h2d", 1, 3000, 1))
    assert (w[:, :, 0] <= 0).all()


def one_card_outs(game, button: str, blind: str, blind_draws: bool) -> int:
    """Stub tops (each of the 42 unseen cards) with which the drawing hand, discarding its king and
    drawing one against the other standing pat, wins."""
    unseen = np.setdiff1d(game.classes.deck, np.r_[parse(button), parse(blind)])
    assert len(unseen) == 42
    others = np.tile(unseen, (42, 1))[~np.eye(42, dtype=bool)].reshape(42, 41)
    stubs = np.concatenate([unseen[:, None], others[:, :9]], axis=1)  # each unseen card on top once
    deals = np.concatenate([np.tile(parse(button), (42, 1)), np.tile(parse(blind), (42, 1)), stubs], axis=1)
    _, canonical = game.classes.classify(parse(blind if blind_draws else button)[None])
    king = 1 << int(np.flatnonzero(canonical[0] >> 2 == 11)[0])  # the king's canonical position
    w = game.showdown_matrix(deals)
    return int((w[:, 0, king] == -1).sum() if blind_draws else (w[:, king, 0] == 1).sum())


def test_known_draw_outs(full):
    """5-4-3-2 + K drawing one vs pat J-T-8-7-6 wins with 16 of 42 cards; 7-4-3-2 + K vs pat 9-8-6-5-3: 12."""
    assert one_card_outs(full, "Js Th 8d 7c 6c", "5c 4d 3h 2s Kc", blind_draws=True) == 16
    assert one_card_outs(full, "9s 8h 6d 5c 3c", "7c 4d 3h 2s Kc", blind_draws=True) == 12
    assert one_card_outs(full, "7c 4d 3h 2s Kc", "9s 8h 6d 5c 3c", blind_draws=False) == 12


@pytest.fixture(scope="module")
def small_solves():
    """Sampled LCFR on ranks=6, suits=2, hand=2 with few and with many samples, and exact exploitability."""
    game = SampledDraw27(6, 2, 2, stacks=(2.0, 5.0))
    out = {}
    for iterations, batch in [(20, 30), (300, 400)]:
        avg = solve_sampled(6, 2, 2, (2.0, 5.0), iterations, batch, seed=4)
        exact = Strategy(*to_exact_strategy(game, avg))
        out[iterations * batch] = (avg, exact.exploitability_per_variant(), exact.value_per_variant)
    return game, out


def test_sampled_lcfr_exploitability_falls(small_solves):
    _, out = small_solves
    few, many = out[600][1], out[120_000][1]
    assert (many < few / 3).all(), (few, many)


def test_vanilla_cfr_rule_converges_too(small_solves):
    game, out = small_solves
    avg = solve_sampled(6, 2, 2, (2.0, 5.0), 150, 400, seed=4, rule="cfr")
    exact = Strategy(*to_exact_strategy(game, avg)).exploitability_per_variant()
    assert (exact < out[600][1] / 3).all()
    with pytest.raises(ValueError):
        solve_sampled(6, 2, 2, (2.0,), 1, 10, seed=0, rule="dcfr")


def test_bracket_contains_exact_exploitability(small_solves):
    game, out = small_solves
    for avg, exact, value in out.values():
        br = exploitability_bracket(game, avg, seed=99, per_class=500)
        assert (br.low - Z * br.low_se <= exact).all() and (exact <= br.high + Z * br.high_se).all(), (br, exact)
        assert (np.abs(br.value - value) <= Z * br.value_se).all(), (br.value, value)
        assert (br.low_se > 0).all() and (br.high - br.low < 0.1 * br.high + 10 * br.high_se).all()


def test_deals_of_classes_hold_the_class_and_uniform_other_cards():
    game = SampledDraw27(6, 2, 2, stacks=(2.0,))
    per_class = 3000
    for player in (0, 1):
        deals = game.sample_deals_of_classes(5, 0, player, 10, 14, per_class)
        assert deals.shape == (4 * per_class, 8)
        assert all(len(set(d)) == 8 for d in deals.tolist())  # real cards, none twice
        ids, _ = game.classes.classify(deals[:, 2 * player:2 * player + 2])
        assert (ids == np.repeat(np.arange(10, 14), per_class)).all()
        hand = deals[:per_class, 2 * player:2 * player + 2]
        rest = np.setdiff1d(game.classes.deck, hand[0])  # the 10 cards left: each as likely in each place
        for column in [2 * (1 - player), 5, 7]:
            counts = np.array([(deals[:per_class, column] == c).sum() for c in rest])
            assert counts.sum() == per_class and np.abs(counts - per_class / 10).max() < 5 * np.sqrt(per_class / 10)
    again = game.sample_deals_of_classes(5, 0, 1, 10, 14, per_class)
    assert (again == deals).all()


def test_to_exact_strategy_keeps_the_strategy(small_solves):
    """The exact table holds each class row for every concrete hand, discards translated."""
    game, out = small_solves
    avg = out[120_000][0]
    layout, probs = to_exact_strategy(game, avg)
    assert np.allclose(probs.sum(-1)[:, layout.action_mask.any(1)], 1)
    c = game.classes.class_of("5c3d")
    for label, hand in [("5d3c", "3c5d"), ("5c3d", "3d5c")]:  # the class's two hands, suits swapped
        e = exact_masks(game, parse(hand)[None])[0]
        assert np.allclose(probs[:, layout.label_index[f"{label}|ac"], e], avg["bb_draw"][c])
        assert np.allclose(probs[:, layout.label_index[f"{label}|ac1"], e], avg["btn_draw"][c, 1])
        assert np.allclose(probs[:, layout.label_index[f"{label}|"], :2], avg["btn_push"][c])


@pytest.mark.parametrize("stacks", [(10.0,), tuple(np.arange(1, 20.001, 0.5))])
def test_batch_sums_are_exact_whatever_the_grouping_of_deals(stacks):
    """Sums of a batch equal, bit for bit, the sums of its parts in any grouping and order (what makes
    a run the same on any number of workers); many stacks make small chunks, a small deck repeats
    classes."""
    game = SampledDraw27(6, 2, 2, stacks=stacks)
    sigma = random_sigma(game, np.random.default_rng(5), np.float32)
    deals = game.sample_deals(2, 0, 1, 5000)
    bits = fixed_point_bits(game, len(deals))
    whole = cfr_values(game, sigma, deals, bits=bits)
    cuts = [0, 7, 1200, 1201, 3333, 5000]
    parts = [cfr_values(game, sigma, deals[a:b], bits=bits) for a, b in zip(cuts, cuts[1:])]
    for name, sums in whole.items():
        for summed in (reduce(add, (p[name] for p in parts)), reduce(add, (p[name] for p in parts[::-1]))):
            assert np.array_equal(sums.rows, summed.rows)
            assert sums.fixed_q.tobytes() == summed.fixed_q.tobytes()
            assert sums.fixed_reach.tobytes() == summed.fixed_reach.tobytes()
        dense = np.zeros((game.n_classes, *game.strategy_table(name).shape))  # the float64 sums, for scale
        for part in np.array_split(deals, 10):
            got = cfr_values(game, sigma, part, bits=bits)[name]
            dense[got.rows] += got.q
        np.testing.assert_allclose(sums.q, dense[sums.rows], rtol=1e-9, atol=1e-9)


def test_five_card_sums_are_exact_whatever_the_grouping(full):
    sigma = random_sigma(full, np.random.default_rng(3), np.float32)
    deals = full.sample_deals(4, 0, 0, 1500)
    whole = cfr_values(full, sigma, deals, players=(0,), bits=30)
    pieces = (deals[:611], deals[611:612], deals[612:])
    parts = [cfr_values(full, sigma, part, players=(0,), bits=30) for part in pieces]
    for name, sums in whole.items():  # one deal alone too: numpy multiplies a single matrix another way
        assert sums.fixed_q.tobytes() == (parts[2][name] + parts[0][name] + parts[1][name]).fixed_q.tobytes()


def sparse_sigma(game: SampledDraw27, rng, zero: float) -> dict:
    """A random strategy with about ``zero`` of its discard cells exactly 0, as regret matching
    leaves them (one row in eight keeps a single discard, one in eight stays whole)."""
    sigma = random_sigma(game, rng, np.float32)
    for name in ("btn_draw", "bb_draw"):
        x = sigma[name]
        x[rng.random(x.shape) < zero] = 0
        single = rng.random(x.shape[:-1]) < 0.125
        x[single] = np.eye(game.n_masks, dtype=np.float32)[rng.integers(0, game.n_masks, single.sum())]
        whole = rng.random(x.shape[:-1]) < 0.125
        x[whole] = random_sigma(game, rng, np.float32)[name][whole]
        x[x.sum(-1) == 0, 0] = 1
        sigma[name] = x / x.sum(-1, keepdims=True)
    return sigma


@pytest.mark.parametrize("dims", [(13, 4, 5), (8, 2, 3), (7, 4, 2)])
def test_class_sums_at_strategies_with_zero_discards_equal_the_per_deal_sums(dims):
    """At strategies such as regret matching leaves (most discards exactly 0, some rows one discard,
    some whole) the per-class sums are the per-deal path's, for both players, with classes of many
    deals, of one, and one class alone with its count (numpy's one-matrix product path)."""
    game = SampledDraw27(*dims, stacks=(1.5, 4.0, 12.0))
    rng = np.random.default_rng(7)
    sigma = sparse_sigma(game, rng, 0.8)
    for player, per_class in itertools.product((0, 1), (1, 9)):
        counts = np.full(min(60, game.n_classes), per_class)
        counts[-1] = 1 if per_class > 1 else 2  # a class alone with its count: its own product path
        deals = game.sample_class_deals(5, (1, player, 0), player, 0, counts)
        got = game.class_sums(sigma, deals, player, counts)
        want = cfr_values(game, sigma, deals, players=(player,), bits=30)
        for name, sums in got.items():
            np.testing.assert_array_equal(sums.rows, want[name].rows)
            np.testing.assert_allclose(sums.q, want[name].q, rtol=2e-5, atol=2e-5 * per_class)
            reach = want[name].reach  # (the per-deal path keeps the button's draw reach per draw count)
            np.testing.assert_allclose(sums.reach, reach if reach.ndim == 2 else reach[:, 0], rtol=1e-6,
                                       atol=1e-8)  # the reference rounds to 2**-30


@pytest.mark.parametrize("dims", [(13, 4, 5), (8, 2, 3)])
def test_class_sums_ignore_the_rows_of_stacks_the_other_player_folds(dims):
    """Where the other player folds a hand at some stacks (and not others), its draw rows at those
    stacks weigh nothing whatever they hold (regret matching leaves them dense): the compiled sums
    skip them and still equal the per-deal path's, which multiplies by the 0 reach; and rows that
    differ only at those stacks give bitwise the same sums."""
    game = SampledDraw27(*dims, stacks=(1.5, 3.0, 6.0, 12.0, 20.0))
    rng = np.random.default_rng(11)
    sigma = sparse_sigma(game, rng, 0.85)
    folds = {}
    for name in ("btn_push", "bb_call"):
        x = sigma[name]
        folds[name] = rng.random(x.shape[:2]) < 0.4  # (C, B): folded at that stack
        folds[name][::3] = [False, True, False, True, True]  # a reached stack between folded ones
        x[folds[name], 1], x[folds[name], 0] = 0.0, 1.0
    dense = random_sigma(game, rng, np.float32)  # whole rows: what the skipped stacks may hold
    for player, (draw, push) in enumerate((("bb_draw", "bb_call"), ("btn_draw", "btn_push"))):
        at = folds[push][:, None, :, None] if draw == "btn_draw" else folds[push][:, :, None]
        junk = {**sigma, draw: np.where(at, dense[draw], sigma[draw]).astype(np.float32)}  # the other's rows
        counts = np.full(min(50, game.n_classes), 6)
        deals = game.sample_class_deals(9, (1, player, 0), player, 0, counts)
        got = game.class_sums(junk, deals, player, counts)
        clean = game.class_sums(sigma, deals, player, counts)
        want = cfr_values(game, junk, deals, players=(player,), bits=30)
        for name, sums in got.items():
            assert sums.q.tobytes() == clean[name].q.tobytes()
            np.testing.assert_allclose(sums.q, want[name].q, rtol=2e-5, atol=2e-5 * 6)


def test_compiled_strategy_values_are_the_summed_products_bit_for_bit():
    """A class's value under its strategy, summed in the compiled loop without the product array,
    has the bits of numpy's product summed term after term (the sums a run's bits were made of)."""
    from distcfr.engine.draw27_compiled import strategy_values
    from distcfr.engine.rules import sum_last

    rng = np.random.default_rng(3)
    sigma = rng.random((40, 6, 3, 32), dtype=np.float32) * (rng.random((40, 6, 3, 32)) < 0.3)
    values = (rng.standard_normal((40, 6, 3, 32)) * 7).astype(np.float32)
    want = sum_last(sum_last((sigma * values).transpose(0, 2, 1, 3)))
    assert want.dtype == np.float32 and np.array_equal(strategy_values(sigma, values), want)
    assert np.array_equal(strategy_values(sigma[:, :1], values[:, :1]), sum_last(sigma[:, 0] * values[:, 0]))


def test_fixed_point_has_room_for_the_batch():
    game = SampledDraw27(6, 2, 2, stacks=(20.0,))
    assert fixed_point_bits(game, 100) == 40 and 30 <= fixed_point_bits(game, 537_836) < 40
    with pytest.raises(BadParameter):
        fixed_point_bits(game, 10**15)


@pytest.mark.parametrize("dims", [(13, 4, 5), (8, 2, 3), (7, 4, 2), (13, 1, 1)])
def test_deal_values_equal_the_per_deal_path(dims):
    """The compiled per-deal payoffs (which skip the pairs of discards that weigh nothing) are the
    numpy per-deal path's, at strategies with many discards exactly 0 and some folded hands."""
    game = SampledDraw27(*dims, stacks=(1.5, 4.0, 12.0))
    sigma = sparse_sigma(game, np.random.default_rng(7), 0.8)
    for name in ("btn_push", "bb_call"):  # some hands fold at every stack
        sigma[name][::5, :, 1], sigma[name][::5, :, 0] = 0.0, 1.0
    deals = game.sample_deals(5, 0, 0, 2000)
    c1, c2, can1, can2, stub = game._columns(deals)
    want = []
    for cut, wt in showdown_chunks(game, can1, can2, stub):
        v = chunk_values(game, sigma, c1[cut], c2[cut], wt, button=False)
        p, q, v2 = (v[key].astype(np.float64) for key in ("p", "q", "v2"))
        want.append(-0.5 * (1 - p) + p * ((1 - q) + q * v2))
    np.testing.assert_allclose(game.deal_values(sigma, deals), np.concatenate(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dims", [(13, 4, 5), (8, 2, 3), (6, 2, 2)])
def test_compiled_classification_is_the_canonical_one(dims):
    game = SampledDraw27(*dims)
    deals = game.sample_deals(3, 0, 0, 5000)
    for u in (0, 1):
        cols = deals[:, u * game.hand:(u + 1) * game.hand].T
        ids, canonical = game._classify(cols)
        want_ids, want_canonical = game.classes.classify_columns(cols)
        assert np.array_equal(ids, want_ids) and np.array_equal(canonical, want_canonical)


def test_deals_of_classes_are_uniform_on_the_full_deck():
    """The compiled draw of the other hand and the stub (a partial shuffle driven by 64-bit words)
    puts every remaining card equally often in every place."""
    game = SampledDraw27(13, 4, 5)
    n = 20000
    deals = game.sample_class_deals(8, (1, 0, 0), 1, 777, np.array([n]))
    hand = deals[0, 5:10]
    assert (deals[:, 5:10] == hand).all()
    ordered = np.sort(deals, axis=1)
    assert (ordered[:, 1:] != ordered[:, :-1]).all()
    rest = np.setdiff1d(game.classes.deck, hand)
    for col in (0, 4, 10, 19):
        counts = np.bincount(deals[:, col], minlength=52)[rest]
        expected = n / len(rest)
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert counts.sum() == n and chi2 < len(rest) - 1 + Z * math.sqrt(2 * (len(rest) - 1))


@pytest.mark.parametrize("player", [0, 1])
def test_sums_of_deals_of_several_stubs_are_the_mean_of_each_stubs_sums(player):
    """A deal of S stubs counts the mean of its stubs' values: the same as S deals of the same hands,
    one stub each, weighed 1/S (here against the per-deal reference path)."""
    game = SampledDraw27(8, 2, 3, stacks=(2.0, 5.0, 9.0))
    rng = np.random.default_rng(1)
    sigma = {}
    for b in game.strategy_tables:
        t = rng.random((game.n_classes, *b.shape)) * (rng.random((game.n_classes, *b.shape)) > 0.4)
        sigma[b.name] = (t / np.maximum(t.sum(-1, keepdims=True), 1e-9)).astype(np.float32)
    counts = np.array([3, 0, 5, 2, 1])
    deals = game.sample_blocks_deals(7, [(1, 2, 3)], player, 10, [counts], stubs=4)
    assert deals.shape == (counts.sum(), 2 * 3 * 5)
    got = game.class_sums(sigma, deals, player, counts, first=10)
    for name, (rows, q, reach) in stub_mean_values(game, sigma, deals, players=(player,)).items():
        assert np.array_equal(got[name].rows, rows)
        assert np.allclose(got[name].q, q, rtol=1e-5, atol=1e-5 * np.abs(q).max())
        mine = got[name].reach.reshape(len(rows), *(1,) * (reach.ndim - 2), -1)  # (G, B) against (G, ..., B)
        assert np.allclose(np.broadcast_to(mine, reach.shape), reach, rtol=1e-6)
    one = game.sample_blocks_deals(7, [(1, 2, 3)], player, 10, [counts], stubs=1)
    assert np.array_equal(one[:, :6], game.sample_class_deals(7, (1, 2, 3), player, 10, counts)[:, :6])


def _chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / counts.size
    return float(((counts - expected) ** 2).sum() / expected)


def test_every_stub_is_uniform_given_the_hands_and_independent_of_the_others():
    """The further stubs' picks (16-bit pieces of a word, Lemire's rejection) shuffle as exactly as
    the first's: the stub's order given both hands is uniform for every stub, and two stubs of a
    deal are independent given the hands. Chi-square over every cell, a 6-sigma bar."""
    game = SampledDraw27(4, 2, 2)  # 8 cards: 2 mine, 2 theirs, every order of the other 4 a stub
    n = 200_000
    deals = game.sample_blocks_deals(3, [(1, 0, 0)], 0, 0, [np.array([n])], stubs=3)
    other = np.sort(deals[:, 2:4], axis=1)
    _, other_id = np.unique(other[:, 0] * 64 + other[:, 1], return_inverse=True)
    assert other_id.max() + 1 == 15  # C(6, 2) other hands

    def order_id(stub):  # which of the 24 orders of the deal's 4 stub cards
        return (np.argsort(stub, axis=1) * np.array([1, 4, 16, 64])).sum(1)

    for s in range(3):
        stub = deals[:, 4 + 4 * s:8 + 4 * s]
        assert np.array_equal(np.sort(stub, axis=1), np.sort(deals[:, 4:8], axis=1))  # the same 4 cards
        cells = np.unique(other_id * 4096 + order_id(stub), return_counts=True)[1]
        assert len(cells) == 15 * 24
        dof = cells.size - 1
        assert _chi_square(cells) < dof + 6 * math.sqrt(2 * dof)
    game = SampledDraw27(4, 2, 1)  # 1-card hands: two stubs' first cards, given the other hand
    deals = game.sample_blocks_deals(4, [(1, 0, 0)], 0, 0, [np.array([n])], stubs=3)
    cells = np.unique(deals[:, 1] * 4096 + deals[:, 4] * 64 + deals[:, 6], return_counts=True)[1]
    assert len(cells) == 7 * 6 * 6
    dof = cells.size - 1
    assert _chi_square(cells) < dof + 6 * math.sqrt(2 * dof)


@pytest.mark.parametrize("player", [0, 1])
def test_a_class_meets_every_other_hand_once_per_cycle_from_a_fresh_start(player):
    """Training deals walk the other hand in the class's cycle: the first C(N - H, H) deals of a
    class hold every hand of the rest of the deck once, the next as many again from another start;
    a call that starts where the last one stopped goes on with the same hands, and the stubs are
    the rest of the deck's cards."""
    game = SampledDraw27(8, 2, 3)
    hands = math.comb(16 - 3, 3)
    deals = game.sample_blocks_deals(11, [(2, 7, 0)], player, 5, [np.array([2 * hands])], 4, np.array([0]))
    own = set(deals[0, player * 3:player * 3 + 3].tolist())
    other = np.sort(deals[:, (1 - player) * 3:(2 - player) * 3], axis=1)
    for cycle in (other[:hands], other[hands:]):
        assert len({tuple(x) for x in cycle.tolist()}) == hands
        assert not any(own & set(x) for x in cycle.tolist())
    assert (other[:hands] != other[hands:]).any(1).mean() > 0.9  # a fresh start
    for s in range(4):  # every stub: 6 cards that neither hand holds
        cards = np.concatenate([deals[:, :6], deals[:, 6 + 6 * s:12 + 6 * s]], axis=1)
        assert all(len(set(row)) == 12 for row in cards.tolist())
    later = game.sample_blocks_deals(11, [(2, 7, 0)], player, 5, [np.array([10])], 4, np.array([hands - 4]))
    assert np.array_equal(np.sort(later[:, (1 - player) * 3:(2 - player) * 3], axis=1), other[hands - 4:hands + 6])


def test_the_other_hand_of_a_cycle_deal_is_uniform_and_pairs_of_places_differ():
    """A cycle's start is named by the seed: over seeds, the other hand at a place is uniform over the
    C(6, 2) hands (chi-square, a 6-sigma bar), and two places of one cycle never hold the same hand."""
    game = SampledDraw27(4, 2, 2)
    seeds = 30_000
    picks = np.array([game.sample_blocks_deals(seed, [(2, 1, 0)], 0, 0, [np.array([2])], 1, np.array([6]))[:, 2:4]
                      for seed in range(seeds)])  # (seeds, 2 places, 2 cards)
    ids = np.sort(picks, axis=2) @ np.array([64, 1])
    assert (ids[:, 0] != ids[:, 1]).all()
    cells = np.unique(ids[:, 0], return_counts=True)[1]
    assert len(cells) == 15
    dof = cells.size - 1
    assert _chi_square(cells) < dof + 6 * math.sqrt(2 * dof)


def test_spread_stubs_are_each_uniform_given_the_hands_and_the_first_turned_round_the_deck():
    """With ``spread`` a cycle deal's further stubs are its first one's places in the rest of the deck
    (deck order) turned by s m / S: each stub is still uniform given both hands (chi-square over
    (other hand, order of the 4 stub cards), a 6-sigma bar)."""
    game = SampledDraw27(4, 2, 2)  # 8 cards: 2 mine, 2 theirs, every order of the other 4 a stub
    assert game.spread
    n = 150_000
    deals = game.sample_blocks_deals(3, [(2, 0, 0)], 0, 0, [np.array([n])], 4, np.array([0]))
    other = np.sort(deals[:, 2:4], axis=1)
    _, other_id = np.unique(other[:, 0] * 64 + other[:, 1], return_inverse=True)
    rest = np.array([[c for c in game.classes.deck.tolist() if c not in row[:4]] for row in deals.tolist()])
    place = (deals[:, 4:8, None] == rest[:, None, :]).argmax(2)  # the first stub's places in the rest
    for s in range(4):
        stub = deals[:, 4 + 4 * s:8 + 4 * s]
        assert np.array_equal(stub, np.take_along_axis(rest, (place + s) % 4, axis=1))  # turned by s 4 / 4
        order = (np.argsort(stub, axis=1) * np.array([1, 4, 16, 64])).sum(1)
        cells = np.unique(other_id * 4096 + order, return_counts=True)[1]
        assert len(cells) == 15 * 24
        dof = cells.size - 1
        assert _chi_square(cells) < dof + 6 * math.sqrt(2 * dof)

"""The sampled nl27 kernel: on decks small enough to enumerate every deal, its values are the exact
solver's, its counterfactual sums add up to the deal values, and a class's sums do not depend on
the other classes of the call."""

import itertools

import numpy as np
import pytest

import distcfr
from distcfr.engine import sampled_nl27
from distcfr.engine.layout import Layout
from distcfr.engine.sampled_nl27 import SampledNl27
from distcfr.errors import BadParameter
from distcfr.games.registry import load_game


def legal_uniform(kernel: SampledNl27) -> dict:
    """Tables playing every action of the game alike (its copies never)."""
    out = {t.name: np.full((kernel.n_classes if t.keyed == "class" else kernel.n_keys, *t.shape), 1 / t.n_actions)
           for t in kernel.strategy_tables}
    for dec in kernel.pre_decisions:
        original = dec.alias == np.arange(dec.alias.shape[1])
        out[("btn_pre", "bb_pre")[dec.player]][:, dec.index] = original / original.sum(1, keepdims=True)
    for t in kernel.templates:
        for dec in filter(None, t.decisions):
            original = dec.alias == np.arange(dec.alias.shape[1])
            cols = (t.base[dec.player] + dec.index) * kernel.k2 + np.arange(kernel.k2)
            out[("btn_post", "bb_post")[dec.player]][:, cols] = original / original.sum(1, keepdims=True)
    return out


def every_deal(kernel: SampledNl27) -> np.ndarray:
    """(D, 4H) every ordered deal of both hands and a stub of 2H cards (hands as sorted sets)."""
    h = kernel.hand
    out = []
    for cards in itertools.permutations(kernel.deck, 4 * h):
        if h == 1 or (list(cards[:h]) == sorted(cards[:h]) and list(cards[h:2 * h]) == sorted(cards[h:2 * h])):
            out.append(cards)
    return np.array(out)


def random_tables(kernel: SampledNl27, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for t in kernel.strategy_tables:
        x = rng.random((kernel.n_classes if t.keyed == "class" else kernel.n_keys, *t.shape))
        out[t.name] = x / x.sum(-1, keepdims=True)
    return out


def grouped(kernel, deals, player):
    h = kernel.hand
    classes = kernel.classes.classify(np.sort(deals[:, player * h:(player + 1) * h], axis=1))[0]
    order = np.argsort(classes, kind="stable")
    return deals[order], np.bincount(classes, minlength=kernel.n_classes)


@pytest.mark.parametrize("spec", ["nl27(ranks=13,suits=1,hand=1,stacks=10)",
                                  "nl27(ranks=5,suits=1,hand=1,stacks=6,open=2.5/4,limp=0)",
                                  "nl27(ranks=3,suits=2,hand=1,stacks=4,bet=1,cap=2)",
                                  "nl27(ranks=6,suits=1,hand=1,stacks=2:8:3)"])
def test_uniform_value_is_the_exact_games(spec):
    """With one card a draw of the rule is the draw of its mask, and a profile that plays every
    action alike is the same strategy whatever keys its decisions: the exact solver's value."""
    kernel = SampledNl27(load_game(spec[:-1] + ",draw=rule,post=value)"))
    value = kernel.deal_values(legal_uniform(kernel), every_deal(kernel)).mean(0)
    layout = Layout(load_game(spec))
    exact = distcfr.Strategy(layout, layout.uniform_strategy()).value_per_variant
    np.testing.assert_allclose(value, exact, atol=1e-12)


@pytest.mark.parametrize("spec", ["nl27(ranks=7,suits=1,hand=1,stacks=3:9:3,draw=rule,post=value)",
                                  "nl27(ranks=4,suits=2,hand=2,stacks=4,bet=1,cap=2,draw=rule,post=3)"])
def test_counterfactual_sums_add_up_to_the_deal_values(spec):
    """The button's first decision: its strategy times its action values, summed over the deals, is
    the sum of the deal values; the big blind's draws likewise give its part at each line."""
    kernel = SampledNl27(load_game(spec))
    tables = random_tables(kernel, 3)
    deals = every_deal(kernel)
    if len(deals) > 20_000:
        deals = deals[np.random.default_rng(0).choice(len(deals), 20_000, replace=False)]
    deals, counts = grouped(kernel, deals, 0)
    got = kernel.class_sums(tables, deals, 0, counts)
    root = kernel.pre_decisions[0]
    original = root.alias == np.arange(root.alias.shape[1])
    sigma = np.stack([kernel.fold(tables["btn_pre"][c, 0], root.alias) for c in got["btn_pre"].rows])
    total = np.where(original, sigma * got["btn_pre"].q[:, 0], 0).sum((0, 2))
    np.testing.assert_allclose(total, kernel.deal_values(tables, deals).sum(0), rtol=2e-5)


def test_a_class_sums_do_not_depend_on_the_other_classes_of_the_call(monkeypatch):
    """Class sums of all classes in one call equal those of each class alone, bit for bit, however the
    deals are cut in pieces; post-draw sums are integers and add up exactly."""
    monkeypatch.setattr(sampled_nl27, "DEAL_CHUNK", 37)
    kernel = SampledNl27(load_game("nl27(ranks=6,suits=2,hand=1,stacks=5,draw=rule,post=value)"))
    tables = random_tables(kernel, 5)
    deals, counts = grouped(kernel, every_deal(kernel)[::7], 1)
    whole = kernel.class_sums(tables, deals, 1, counts)
    ends = np.cumsum(counts)
    post = np.zeros((kernel.n_keys, *kernel.strategy_table("bb_post").shape), np.int64)
    for c in range(kernel.n_classes):
        alone = np.zeros_like(counts)
        alone[c] = counts[c]
        part = kernel.class_sums(tables, deals[ends[c] - counts[c]:ends[c]], 1, alone)
        for name in ("bb_pre", "bb_draw"):
            assert part[name].rows.tolist() == [c]
            assert np.array_equal(part[name].q[0], whole[name].q[c])
            assert np.array_equal(part[name].reach[0], whole[name].reach[c])
        post[part["bb_post"].rows] += part["bb_post"].q
    assert np.array_equal(post[whole["bb_post"].rows], whole["bb_post"].q)


def test_refuses_the_unabstracted_game():
    with pytest.raises(BadParameter, match="draw=rule"):
        SampledNl27(load_game("nl27(ranks=6,suits=1,hand=1)"))

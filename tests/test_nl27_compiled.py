"""The compiled pass of the sampled nl27 kernel against its numpy reference pass (two independent
paths that must agree): deal values and, per deal, the traverser's counterfactual sums of its class
tables to 1e-9 relative, its int64 post-draw key sums to a few units (each deal's contribution rounded
to 2^-32 BB from float sums the two passes may order differently), on random tables with and without
zeros, several decks and stack lists, tables held in parts (RowTable)."""

import numpy as np
import pytest

from distcfr.engine.row_table import RowTable
from distcfr.engine.sampled_nl27 import SampledNl27
from distcfr.games.registry import load_game

SPECS = ["nl27(ranks=6,suits=2,hand=1,stacks=5,draw=rule,post=value)",
         "nl27(ranks=7,suits=1,hand=1,stacks=3:9:3,draw=rule,post=value)",
         "nl27(ranks=4,suits=2,hand=2,stacks=4,bet=1,cap=2,draw=rule,post=3)",
         "nl27(ranks=6,suits=2,hand=2,stacks=2:8:3,open=2.5/4,draw=rule,post=value)",
         "nl27(ranks=13,suits=4,hand=5,stacks=20,draw=rule,post=256)"]


def random_tables(kernel: SampledNl27, seed: int, zeros: float, dtype=np.float64) -> dict:
    """Random strategies; with ``zeros`` that share of the entries 0 (a row never all 0)."""
    rng = np.random.default_rng(seed)
    out = {}
    for t in kernel.strategy_tables:
        x = rng.random((kernel.table_rows(t), *t.shape))
        x[rng.random(x.shape) < zeros] = 0.0
        x[..., 0] += x.sum(-1) == 0
        out[t.name] = (x / x.sum(-1, keepdims=True)).astype(dtype)
    return out


def deals_of(kernel: SampledNl27, n: int, seed: int) -> np.ndarray:
    """(n, 4H) random deals: both hands (sorted) and the stub."""
    rng = np.random.default_rng(seed)
    h = kernel.hand
    cards = np.array([rng.permutation(kernel.deck)[:4 * h] for _ in range(n)])
    cards[:, :h].sort(axis=1)
    cards[:, h:2 * h].sort(axis=1)
    return cards


def per_deal(kernel: SampledNl27, sigma: dict, deals: np.ndarray, player: int) -> tuple[dict, tuple]:
    """The compiled pass with each deal its own group: ({table: (q, reach)} per deal, (post q, reach))."""
    names = [t for t in kernel.strategy_tables if t.player == player]
    sums = {t.name: (np.zeros((len(deals), *t.shape)), np.zeros((len(deals), *t.shape[:-1])))
            for t in names if t.keyed == "class"}
    post = next(t for t in names if t.keyed == "post")
    post_sums = (np.zeros((kernel.n_keys, *post.shape), np.int64),
                 np.zeros((kernel.n_keys, *post.shape[:-1]), np.int64), np.arange(kernel.n_keys))
    kernel.compiled_pass(sigma, kernel.hands(deals), player, np.arange(len(deals)), sums=sums, post_sums=post_sums)
    return sums, post_sums[:2]


def reference(kernel: SampledNl27, sigma: dict, deals: np.ndarray, player: int) -> tuple[dict, tuple]:
    post = next(t for t in kernel.strategy_tables if t.player == player and t.keyed == "post")
    post_q = np.zeros((kernel.n_keys, *post.shape), np.int64)
    post_r = np.zeros((kernel.n_keys, *post.shape[:-1]), np.int64)
    got = kernel._pass_reference(sigma, deals, player, post_q, post_r)
    return got, (post_q, post_r)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("zeros", [0.0, 0.5])
def test_compiled_pass_gives_the_reference_values_and_sums(spec, zeros):
    kernel = SampledNl27(load_game(spec))
    sigma = random_tables(kernel, 11, zeros)
    deals = deals_of(kernel, 300, 2)
    kernel.compiled = False
    expected = kernel.deal_values(sigma, deals)
    kernel.compiled = True
    np.testing.assert_allclose(kernel.deal_values(sigma, deals), expected, rtol=1e-9, atol=1e-12)
    for player in (0, 1):
        got, (post_q, post_r) = per_deal(kernel, sigma, deals, player)
        want, (want_q, want_r) = reference(kernel, sigma, deals, player)
        for name, (q, reach) in got.items():
            np.testing.assert_allclose(q, want[name][0], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(reach, want[name][1], rtol=1e-9, atol=1e-12)
        assert want_r.any() and want_q.any()
        assert np.abs(post_q - want_q).max() <= 2 and np.abs(post_r - want_r).max() <= 2


def test_float32_tables_in_parts_and_returned_key_rows():
    """Tables held in parts (class rows in RowTables, post rows gathered by key) and float32 give the
    sums of plain float64 arrays of the same values; without ``key_sums`` the post rows any deal
    reached come back, the same sums as added into whole tables."""
    kernel = SampledNl27(load_game("nl27(ranks=6,suits=2,hand=2,stacks=2:8:3,draw=rule,post=value)"))
    plain = random_tables(kernel, 4, 0.3, np.float32)

    def parts(table):
        cut = len(table) // 3
        return RowTable([0, cut, len(table)], [table[:cut], table[cut:]])

    held = {name: parts(table) for name, table in plain.items()}
    deals = deals_of(kernel, 400, 9)
    np.testing.assert_array_equal(kernel.deal_values(held, deals), kernel.deal_values(plain, deals))
    h = kernel.hand
    for player in (0, 1):
        classes = kernel.classes.classify(np.sort(deals[:, player * h:(player + 1) * h], axis=1))[0]
        order = np.argsort(classes, kind="stable")
        counts = np.bincount(classes, minlength=kernel.n_classes)
        post = next(t for t in kernel.strategy_tables if t.player == player and t.keyed == "post")
        key_sums = {post.name: (np.zeros((kernel.n_keys, *post.shape), np.int64),
                                np.zeros((kernel.n_keys, *post.shape[:-1]), np.int64))}
        whole = kernel.class_sums(plain, deals[order], player, counts, key_sums=key_sums)
        part = kernel.class_sums(held, deals[order], player, counts)
        for name, totals in whole.items():
            assert np.array_equal(totals.rows, part[name].rows)
            assert np.array_equal(totals.q, part[name].q) and np.array_equal(totals.reach, part[name].reach)
        q, reach = key_sums[post.name]
        rows = part[post.name].rows
        assert len(rows) and np.array_equal(q[rows], part[post.name].q)
        assert np.array_equal(reach[rows], part[post.name].reach)
        others = np.setdiff1d(np.arange(kernel.n_keys), rows)
        assert not q[others].any() and not reach[others].any()

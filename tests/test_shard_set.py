"""Shard sets: tree sums that do not depend on who adds what, the kernels' cache, and which
calls may be rerun after a worker is lost."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import distcfr
from distcfr.engine.best_response import BestResponseStateLost
from distcfr.engine.cfr_kernel import CFRKernel
from distcfr.engine.layout import Layout
from distcfr.engine.shard import Shard
from distcfr.engine.shard_set import LocalShards, ShardGroup, combine, subtree_sums


@settings(max_examples=60, deadline=None)
@given(n_shards=st.integers(1, 13), cuts=st.lists(st.integers(1, 12), max_size=6), seed=st.integers(0, 2**32 - 1),
       order_seed=st.integers(0, 2**32 - 1))
def test_tree_sums_are_bitwise_the_same_for_any_grouping_and_order(n_shards, cuts, seed, order_seed):
    rng = np.random.default_rng(seed)
    results = {i: rng.standard_normal(5) * 10.0 ** rng.integers(-8, 8, 5) for i in range(n_shards)}
    whole = combine(subtree_sums(results, 0, n_shards, 0, n_shards), 0, n_shards)
    edges = sorted({0, n_shards, *(c for c in cuts if c < n_shards)})  # workers' contiguous blocks
    partials = [subtree_sums(results, 0, n_shards, a, b) for a, b in zip(edges[:-1], edges[1:])]
    merged = {}
    for k in np.random.default_rng(order_seed).permutation(len(partials)):  # any arrival order
        merged.update(partials[k])
    assert combine(merged, 0, n_shards).tobytes() == whole.tobytes()


def test_rerunnable_and_stateful_calls_are_marked():
    marks = {name: getattr(ShardGroup, name).rerunnable
             for name in ("cfr_sums", "profile_value", "br_start", "br_level_q", "br_level_apply", "br_root")}
    assert marks == {"cfr_sums": True, "profile_value": True, "br_start": True,
                     "br_level_q": False, "br_level_apply": False, "br_root": False}


def test_a_best_response_step_without_its_start_says_its_state_is_lost():
    shards = LocalShards(Layout(distcfr.load_game("kuhn")), 2)
    with pytest.raises(BestResponseStateLost):
        shards.br_level_q(2)


def test_the_cfr_cache_redoes_exactly_the_changed_player():
    layout = Layout(distcfr.load_game("leduc"))
    rng = np.random.default_rng(1)
    first = rng.random((1, layout.n_infosets, layout.max_actions)) * layout.action_mask
    first /= first.sum(-1, keepdims=True)
    second = first.copy()
    second[:, layout.player_rows[0]] = layout.uniform_strategy()[:, layout.player_rows[0]]
    kept = CFRKernel(Shard(layout, 0, layout.n_deals))
    kept.cfr_sums(first, (0, 1))
    fresh = CFRKernel(Shard(layout, 0, layout.n_deals))
    a, b = kept.cfr_sums(second, (0, 1)), fresh.cfr_sums(second, (0, 1))
    for p in (0, 1):
        assert a[p][0].tobytes() == b[p][0].tobytes() and a[p][1].tobytes() == b[p][1].tobytes()


def test_evaluation_does_not_disturb_the_solver():
    game = distcfr.load_game("leduc")
    with distcfr.Solver(game, algorithm="dcfr", shards=3) as evaluated, \
            distcfr.Solver(game, algorithm="dcfr", shards=3) as plain:
        for _ in range(6):
            evaluated.step()
            evaluated.average_strategy().exploitability()
            evaluated.current_strategy().value()
            plain.step()
        assert evaluated.sigma.tobytes() == plain.sigma.tobytes()

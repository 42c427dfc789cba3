"""Infoset numbering: player rows contiguous, labels unique, masks consistent."""

import numpy as np
import pytest

import distcfr
from distcfr.engine.layout import Layout


@pytest.mark.parametrize("spec, n_infosets", [("kuhn", 12), ("leduc", 288), ("minipoker(ranks=4)", 24)])
def test_infoset_counts_and_player_rows(spec, n_infosets):
    layout = Layout(distcfr.load_game(spec))
    assert layout.n_infosets == n_infosets
    first, second = layout.player_rows
    assert first.start == 0 and first.stop == second.start and second.stop == n_infosets
    assert (layout.infoset_player[first] == 0).all() and (layout.infoset_player[second] == 1).all()
    assert len(layout.label_index) == n_infosets
    assert (layout.action_mask.sum(axis=1) == layout.n_actions).all()
    uniform = layout.uniform_strategy()
    assert np.allclose(uniform.sum(axis=-1), 1.0) and (uniform[:, ~layout.action_mask] == 0).all()


def test_rows_at_a_depth_are_the_infosets_of_that_depth():
    layout = Layout(distcfr.load_game("leduc"))
    for p in (0, 1):
        for depth in range(layout.tree.n_levels):
            rows = layout.rows_at(p, depth)
            assert (layout.infoset_depth[rows] == depth).all() and (layout.infoset_player[rows] == p).all()


def test_kuhn_labels_follow_the_documented_format():
    layout = Layout(distcfr.load_game("kuhn"))
    assert layout.labels[:3] == ("J|", "Q|", "K|") and "K|pb" in layout.label_index
    assert layout.action_labels[layout.label_index["K|pb"]] == ("fold", "call")


def test_shard_bounds_cover_every_deal_once():
    layout = Layout(distcfr.load_game("leduc"))
    bounds = layout.shard_bounds(7)
    assert bounds[0][0] == 0 and bounds[-1][1] == layout.n_deals
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))

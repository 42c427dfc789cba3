"""Strategy files: bit-exact round trip, refusal of corrupt, truncated and foreign files."""

import msgpack
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import distcfr
from distcfr.engine.layout import Layout
from distcfr.evaluate.strategy import Strategy, load_strategy
from distcfr.io.schema import seal_map


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("files") / "leduc.msgpack"
    strategy = distcfr.Solver(distcfr.load_game("leduc")).solve(iterations=50)
    strategy.save(path)
    return strategy, path


def test_round_trip_is_bit_exact(saved):
    strategy, path = saved
    loaded = load_strategy(path)
    assert loaded.probs.tobytes() == strategy.probs.tobytes()
    assert loaded.labels() == strategy.labels()
    assert loaded.exploitability() == strategy.exploitability()


def test_truncated_file_is_refused(saved, tmp_path):
    _, path = saved
    bad = tmp_path / "cut.msgpack"
    bad.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(distcfr.BadFile):
        load_strategy(bad)


def test_garbage_is_refused(tmp_path):
    bad = tmp_path / "garbage.msgpack"
    bad.write_bytes(b"\x93\x01\x02" + bytes(range(256)) * 4)
    with pytest.raises(distcfr.BadFile):
        load_strategy(bad)


def test_foreign_and_other_version_files_are_refused(saved, tmp_path):
    _, path = saved
    obj = msgpack.unpackb(path.read_bytes())
    for change, message in (({"format": "something-else"}, "not a distcfr-strategy"),
                            ({"version": 99}, "version 99"),
                            ({"game": "kuhn"}, "do not match"),
                            ({"game": "nonsense"}, "cannot be loaded")):
        bad = tmp_path / "bad.msgpack"
        bad.write_bytes(seal_map({**obj, **change}))
        with pytest.raises(distcfr.BadFile, match=message):
            load_strategy(bad)


def test_array_with_lying_shape_is_refused(saved, tmp_path):
    _, path = saved
    obj = msgpack.unpackb(path.read_bytes())
    obj["probabilities"]["shape"] = [10**9, 10**9, 3]
    bad = tmp_path / "huge.msgpack"
    bad.write_bytes(seal_map(obj))
    with pytest.raises(distcfr.BadFile, match="truncated or corrupt"):
        load_strategy(bad)


def test_crafted_length_header_cannot_allocate(tmp_path):
    bad = tmp_path / "bomb.msgpack"
    bad.write_bytes(b"\xdd\xff\xff\xff\xff")  # an array header claiming 4 billion items
    with pytest.raises(distcfr.BadFile):
        load_strategy(bad)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       spec=st.sampled_from(["kuhn", "leduc", "draw27(ranks=4,suits=1,hand=1,stacks=2:3:1)"]))
def test_save_load_round_trip_is_bit_exact_for_any_strategy(tmp_path_factory, seed, spec):
    layout = Layout(distcfr.load_game(spec))
    rng = np.random.default_rng(seed)
    raw = rng.random((layout.n_variants, layout.n_infosets, layout.max_actions)) ** 4 * layout.action_mask
    meta = {"algorithm": "cfr", "iterations": seed >> 1}  # iterations a run can reach: below 2^31
    strategy = Strategy(layout, raw / raw.sum(axis=-1, keepdims=True), meta=meta)
    path = tmp_path_factory.mktemp("rt") / "s.msgpack"
    strategy.save(path)
    loaded = load_strategy(path)
    assert loaded.probs.tobytes() == strategy.probs.tobytes() and loaded.meta["iterations"] == seed >> 1


@settings(max_examples=10, deadline=None)
@given(iterations=st.integers(1, 12), algorithm=st.sampled_from(distcfr.ALGORITHMS))
def test_checkpoint_round_trip_is_bit_exact(tmp_path_factory, iterations, algorithm):
    with distcfr.Solver(distcfr.load_game("kuhn"), algorithm=algorithm) as solver:
        solver.solve(iterations=iterations)
        path = tmp_path_factory.mktemp("ck") / "c.ckpt"
        solver.checkpoint().save(path)
        back = distcfr.Checkpoint.load(path)
        for name in ("regrets", "sums", "sigma", "prediction"):
            mine, theirs = getattr(solver.checkpoint(), name), getattr(back, name)
            assert (mine is None and theirs is None) or mine.tobytes() == theirs.tobytes()
        assert (back.rule, back.iteration, back.phase) == (solver.rule, iterations, 0)

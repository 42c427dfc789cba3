"""distcfr.load_strategy reads every strategy file kind: exact solves' and sampled solves'."""

import numpy as np
import pytest

import distcfr
from distcfr.engine.kernels import sampled_kernel
from distcfr.errors import BadFile
from distcfr.evaluate.class_strategy import ClassStrategy
from distcfr.evaluate.load import load_strategy
from distcfr.evaluate.strategy import Strategy
from distcfr.games.registry import load_game


def test_the_facade_reads_every_kind():
    assert distcfr.load_strategy is load_strategy


def test_an_exact_strategy_file(tmp_path):
    game = load_game("kuhn")
    saved = Strategy.from_dict(game, {"K|b": {"fold": 0, "call": 1}, "J|": {"check": 0.75, "bet": 0.25}})
    saved.save(tmp_path / "kuhn.msgpack")
    loaded = load_strategy(tmp_path / "kuhn.msgpack")
    assert isinstance(loaded, Strategy) and loaded.probs.tobytes() == saved.probs.tobytes()


def test_a_sampled_class_strategy_file(tmp_path):
    game = load_game("draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)")
    kernel = sampled_kernel(game)
    rng = np.random.default_rng(0)
    tables = {}
    for spec in kernel.strategy_tables:
        x = rng.random((kernel.n_classes, *spec.shape))
        tables[spec.name] = (x / x.sum(-1, keepdims=True)).astype(np.float32)
    ClassStrategy(game, tables, meta={"iterations": 7}).save(tmp_path / "sampled.msgpack")
    loaded = distcfr.load_strategy(tmp_path / "sampled.msgpack")
    assert isinstance(loaded, ClassStrategy) and loaded.game.spec == game.spec and loaded.meta["iterations"] == 7
    for name, table in tables.items():  # stored as float16
        assert np.array_equal(loaded.tables[name], table.astype(np.float16).astype(np.float32))
    assert isinstance(loaded.to_exact(), Strategy)  # small enough to enumerate


def test_anything_else_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "notes.msgpack"
    bad.write_bytes(b"not a strategy")
    with pytest.raises(BadFile):
        load_strategy(bad)

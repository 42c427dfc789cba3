"""Hostile input: crafted checkpoints and strategy files, paths that are not regular files, and
spec strings built to be slow or to overflow. Each is refused with one line and exit 2, fast,
without a traceback and without allocating more than the declared game needs."""

import ast
import math
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import distcfr
from distcfr import show, train
from distcfr.engine.rules import RULES, make_rule
from distcfr.evaluate.strategy import load_strategy
from distcfr.io.schema import seal_map
from distcfr.solve.checkpoint import Checkpoint


def one_line_exit_2(capsys, rc, *expected, case="") -> str:
    err = capsys.readouterr().err
    assert rc == 2, (case, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (case, err)
    for text in expected:
        assert text in err, (case, err)
    return err


def pack(obj) -> bytes:
    """A crafted file map, sealed with fresh checksums: what it is refused for is its contents."""
    return seal_map(obj)


def array_field(array: np.ndarray) -> dict:
    return {"dtype": array.dtype.str, "shape": list(array.shape), "data": array.tobytes()}


def table(obj, name) -> np.ndarray:
    a = obj[name]
    return np.frombuffer(a["data"], a["dtype"]).reshape(a["shape"]).copy()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A leduc strategy file (rows of 2 and of 3 actions) and a kuhn dcfr checkpoint."""
    folder = tmp_path_factory.mktemp("hostile")
    strategy = folder / "leduc.msgpack"
    assert train.main(["--game", "leduc", "--iterations", "20", "--algorithm", "cfr+", "--out", str(strategy),
                       "--quiet", "--no-tables"]) == 0
    ckpt = folder / "kuhn.ckpt"
    assert train.main(["--game", "kuhn", "--iterations", "30", "--algorithm", "dcfr", "--checkpoint", str(ckpt),
                       "--out", str(folder / "k.msgpack"), "--quiet", "--no-tables", "--workers", "0"]) == 0
    return msgpack.unpackb(strategy.read_bytes()), msgpack.unpackb(ckpt.read_bytes())


# ---- strategy files -----------------------------------------------------------------------------
def nested(depth: int) -> list:
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


def _strategy_cases(s):
    probs = table(s, "probabilities")
    legal = probs.sum(axis=-1, keepdims=True) > 0
    nan, negative, unnormalised, padding = probs.copy(), probs.copy(), probs.copy(), probs.copy()
    nan[0, 3, 0] = np.nan
    negative[0, 3, :2] = [1.5, -0.5]
    unnormalised[0, 5] *= 0.5
    row = int(np.flatnonzero((probs[0] > 0).sum(axis=-1) < probs.shape[-1])[0])  # a row with padding
    padding[0, row, -1] = 0.25
    assert legal.all()
    return {
        "dtype as a dict": ({"probabilities": {**s["probabilities"], "dtype": {"a": 1}}}, "dtype"),
        "dtype as a list": ({"probabilities": {**s["probabilities"], "dtype": ["<f8"]}}, "dtype"),
        "other dtype": ({"probabilities": array_field(probs.astype("<f4"))}, "expected"),
        "shape as a string": ({"probabilities": {**s["probabilities"], "shape": "3,2"}}, "shape"),
        "shape with a bool": ({"probabilities": {**s["probabilities"], "shape": [True, 288, 3]}}, "shape"),
        "iterations as a string": ({"iterations": "20"}, "'iterations'"),
        "iterations as a bool": ({"iterations": True}, "'iterations'"),
        "iterations negative": ({"iterations": -1}, "'iterations'"),
        "iterations too large": ({"iterations": 2**64 - 1}, "'iterations'"),
        "game as a number": ({"game": 7}, "'game'"),
        "game missing": ({"game": None}, "'game'"),
        "game too long": ({"game": "leduc" + " " * 100_000}, "longer than"),
        "game longer than a spec may be": ({"game": "leduc" + " " * 5000}, "longer than"),
        "algorithm as a map": ({"algorithm": {"x": 1}}, "'algorithm'"),
        "rule as a list": ({"rule": ["cfr+"]}, "'rule'"),
        "rule parameter as a list": ({"rule": {"name": "dcfr", "alpha": [1]}}, "rule"),
        "evaluation as a string": ({"evaluation": "good"}, "'evaluation'"),
        "evaluation row missing a key": ({"evaluation": [{"variant": "", "value": 0.1}]}, "'evaluation'"),
        "variants as a number": ({"variants": 3}, "'variants'"),
        "infosets of another game": ({"infosets": s["infosets"][::-1]}, "do not match"),
        "actions of another game": ({"actions": [a[::-1] for a in s["actions"]]}, "do not match"),
        "unknown field": ({"payload": "x"}, "not part of this file format"),
        "NaN probability": ({"probabilities": array_field(nan)}, "not finite"),
        "negative probability": ({"probabilities": array_field(negative)}, "negative"),
        "probabilities not summing to one": ({"probabilities": array_field(unnormalised)}, "do not sum to one"),
        "probability on a padding column": ({"probabilities": array_field(padding)}, "not legal"),
        "extension type": ({"algorithm": msgpack.ExtType(5, b"boom")}, "extension type"),
        "timestamp extension": ({"algorithm": msgpack.Timestamp(1, 0)}, "extension type"),
        "deep nesting": ({"evaluation": nested(60)}, "'evaluation'"),
    }


def test_crafted_strategy_files_are_one_line(files, tmp_path, capsys):
    strategy, _ = files
    for name, (change, message) in _strategy_cases(strategy).items():
        bad = tmp_path / "bad.msgpack"
        bad.write_bytes(pack({k: v for k, v in {**strategy, **change}.items() if v is not None}))
        one_line_exit_2(capsys, show.main([str(bad)]), message, str(bad), case=name)
        with pytest.raises(distcfr.BadFile):
            load_strategy(bad)


def _with_raw(obj: dict, field: str, raw: bytes) -> bytes:
    """The msgpack of ``obj`` with the encoding of ``field``'s value replaced by ``raw`` bytes."""
    marker = "\x00MARK\x00"
    data = pack({**obj, field: marker})
    encoded = msgpack.packb(marker)
    assert data.count(encoded) == 1
    return data.replace(encoded, raw)


LENGTH_BOMBS = {
    "str32 claiming 4 GB": b"\xdb\xff\xff\xff\xff",
    "bin32 claiming 4 GB": b"\xc6\xff\xff\xff\xff",
    "array32 claiming 4 billion items": b"\xdd\xff\xff\xff\xff",
    "map32 claiming 4 billion entries": b"\xdf\xff\xff\xff\xff",
    "ext32 claiming 4 GB": b"\xc9\xff\xff\xff\xff\x05",
    "nesting 100,000 deep": b"\x91" * 100_000 + b"\xc0",
    "nesting 5,000 deep": b"\x91" * 5_000 + b"\xc0",
}


@pytest.mark.parametrize("field", ["game", "algorithm", "infosets", "probabilities"])
def test_length_prefixes_cannot_allocate(files, tmp_path, field):
    strategy, _ = files
    for name, raw in LENGTH_BOMBS.items():
        bad = tmp_path / "bomb.msgpack"
        bad.write_bytes(_with_raw(strategy, field, raw) + b"\x00" * 64)
        tracemalloc.start()
        start = time.perf_counter()
        try:
            with pytest.raises(distcfr.BadFile):
                load_strategy(bad)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert time.perf_counter() - start < 5, name
        assert peak < 20e6, (name, peak)  # leduc's tables and labels are well under 1 MB


def test_a_file_larger_than_its_game_allows_is_not_read(files, tmp_path, capsys):
    strategy, _ = files
    big = tmp_path / "sparse.msgpack"
    big.write_bytes(pack(strategy))
    os.truncate(big, 20 << 30)  # 20 GB, sparse: refusing it must not read it
    start = time.perf_counter()
    one_line_exit_2(capsys, show.main([str(big)]), "more than a distcfr-strategy file of leduc can be")
    assert time.perf_counter() - start < 5


def test_header_must_come_first(files, tmp_path, capsys):
    strategy, _ = files
    moved = {k: v for k, v in strategy.items() if k != "game"}
    moved["game"] = strategy["game"]
    bad = tmp_path / "moved.msgpack"
    bad.write_bytes(pack(moved))
    one_line_exit_2(capsys, show.main([str(bad)]), "'game'")


# ---- checkpoints -----------------------------------------------------------------------------------
def _checkpoint_cases(c):
    regrets, sums, sigma = table(c, "regrets"), table(c, "sums"), table(c, "sigma")
    nan_regrets, inf_sums, negative_sums, bad_sigma = regrets.copy(), sums.copy(), sums.copy(), sigma.copy()
    nan_regrets[0, 1, 0] = np.nan
    inf_sums[0, 2, 1] = np.inf
    negative_sums[0, 2, 1] = -1.0
    bad_sigma[0, 4] = [0.7, 0.7]
    return {
        "regrets dtype as a dict": ({"regrets": {**c["regrets"], "dtype": {"a": 1}}}, "dtype"),
        "regrets dtype as a list": ({"regrets": {**c["regrets"], "dtype": [1]}}, "dtype"),
        "sums as a string": ({"sums": "big"}, "sums"),
        "iteration as a string": ({"iteration": "30"}, "'iteration'"),
        "iteration as a float": ({"iteration": 30.0}, "'iteration'"),
        "shards as a bool": ({"shards": True}, "'shards'"),
        "shards beyond the game's deals": ({"shards": 2**63}, "'shards'"),
        "phase out of range": ({"phase": 2}, "'phase'"),
        "updates unknown": ({"updates": "sideways"}, "'updates'"),
        "rule without a name": ({"rule": {"alpha": 1.5, "beta": 0.0, "gamma": 2.0}}, "rule"),
        "rule missing a parameter": ({"rule": {"name": "dcfr", "alpha": 1.5, "beta": 0.0}}, "gamma"),
        "rule parameter as a string": ({"rule": {"name": "dcfr", "alpha": "x", "beta": 0.0, "gamma": 2.0}}, "alpha"),
        "rule parameter NaN": ({"rule": {"name": "dcfr", "alpha": math.nan, "beta": 0.0, "gamma": 2.0}}, "alpha"),
        "rule unknown": ({"rule": {"name": "cfr++"}}, "unknown algorithm"),
        "rng state": ({"rng_state": b"x" * 16}, "'rng_state'"),
        "NaN regrets": ({"regrets": array_field(nan_regrets)}, "not finite"),
        "infinite strategy sums": ({"sums": array_field(inf_sums)}, "not finite"),
        "negative strategy sums": ({"sums": array_field(negative_sums)}, "negative"),
        "current strategy not summing to one": ({"sigma": array_field(bad_sigma)}, "do not sum to one"),
        "iteration beyond the sums": ({"iteration": 3000}, "does not fit its strategy sums"),
        "iteration below the sums": ({"iteration": 3}, "does not fit its strategy sums"),
        "no iteration for the sums": ({"iteration": 0}, "does not fit its strategy sums"),
        "iteration of 2^31 - 1": ({"iteration": 2**31 - 1}, "does not fit its strategy sums"),
        "iteration of 2^31": ({"iteration": 2**31}, "outside 0..2147483647"),
        "iteration of 2^53": ({"iteration": 2**53}, "'iteration'"),
        "regrets beyond 1e30": ({"regrets": array_field(np.full_like(regrets, 3.4e38))}, "magnitude 3.4e+38"),
        "sums beyond 1e30": ({"sums": array_field(np.full_like(sums, 1e30))}, "beyond the 1e+30"),
        "iteration beyond 2^53": ({"iteration": 2**63}, "'iteration'"),
        "predictive rule without a prediction": ({"rule": {"name": "pcfr+"}}, "no prediction table"),
        "phase with simultaneous updates": ({"phase": 1, "updates": "simultaneous"}, "phase"),
        "unknown field": ({"notes": "x"}, "not part of this file format"),
    }


def test_crafted_checkpoints_are_one_line(files, tmp_path, capsys):
    _, checkpoint = files
    for name, (change, message) in _checkpoint_cases(checkpoint).items():
        bad = tmp_path / "bad.ckpt"
        bad.write_bytes(pack({**checkpoint, **change}))
        out = tmp_path / "out.msgpack"
        rc = train.main(["--resume", str(bad), "--iterations", "40", "--out", str(out), "--quiet", "--workers", "0"])
        one_line_exit_2(capsys, rc, message, case=name)
        assert not out.exists(), name
        with pytest.raises(distcfr.BadFile):
            Checkpoint.load(bad)


def test_floored_rule_refuses_negative_regrets(tmp_path):
    solver = distcfr.Solver(distcfr.load_game("kuhn"), algorithm="cfr+")
    solver.solve(iterations=10)
    solver.regrets[0, 0, 0] = -1.0
    solver.checkpoint().save(tmp_path / "c.ckpt")
    with pytest.raises(distcfr.BadFile, match="floors at zero"):
        Checkpoint.load(tmp_path / "c.ckpt")


@pytest.mark.parametrize("algorithm", list(RULES))
@pytest.mark.parametrize("updates", ["alternating", "simultaneous"])
def test_real_checkpoints_fit_their_iteration(tmp_path, algorithm, updates):
    """Every rule and update order, at iteration boundaries and between the two halves of an
    alternating iteration, passes the check that refuses an iteration the sums cannot have."""
    game = distcfr.load_game("draw27(stacks=2:3:1)")
    solver = distcfr.Solver(game, algorithm=algorithm, updates=updates, gamma=3.0 if algorithm == "dcfr" else None)
    for iterations in (0, 1, 2, 7, 40):
        if iterations:
            solver.solve(iterations=iterations)
        solver.checkpoint().save(tmp_path / "c.ckpt")
        assert Checkpoint.load(tmp_path / "c.ckpt").iteration == iterations
    if updates == "alternating":  # the first half of iteration 41 only, as a stop between halves leaves it
        discount = solver.rule.discount(solver.iteration + 1)
        solver._update(0, solver._cfr_sums((0,))[0], discount)
        solver.phase = 1
        solver.checkpoint().save(tmp_path / "c.ckpt")
        assert Checkpoint.load(tmp_path / "c.ckpt").phase == 1


def test_declared_averaging_matches_the_schedule():
    for kind in RULES.values():
        rule = make_rule(kind.name)
        if rule.average_exponent is None:
            continue
        for t in (1, 2, 3, 10, 1000):
            assert rule.discount(t).strategy == pytest.approx(((t - 1) / t) ** rule.average_exponent, abs=0), kind
        weight = 0.0
        for u in range(1, 3001):
            weight = rule.discount(u).strategy * weight + 1
            if u in (1, 2, 5, 100, 3000):
                low, high = rule.average_weight_bounds(u)
                assert low - 1e-9 <= weight <= high + 1e-9, (kind.name, u)


def test_an_undeclared_schedule_is_followed(monkeypatch, tmp_path):
    from distcfr.engine.rules import Discount, RuleKind

    monkeypatch.setitem(RULES, "half", RuleKind("half", "test rule", lambda t, p: Discount(t, 0.5, 0.5, 0.5)))
    solver = distcfr.Solver(distcfr.load_game("kuhn"), algorithm="half")
    solver.solve(iterations=25)
    solver.checkpoint().save(tmp_path / "h.ckpt")
    assert Checkpoint.load(tmp_path / "h.ckpt").iteration == 25
    solver.iteration = 3  # sums of 25 halvings (~2) are those of 3 only within 1/4
    solver.checkpoint().save(tmp_path / "h.ckpt")
    with pytest.raises(distcfr.BadFile, match="does not fit its strategy sums"):
        Checkpoint.load(tmp_path / "h.ckpt")


# ---- paths that are not regular files -------------------------------------------------------------------
TRAIN = [sys.executable, "-m", "distcfr.train"]
SHOW = [sys.executable, "-m", "distcfr.show"]


def run_cli(argv, timeout=30):
    """A CLI in a subprocess (a hang fails the test instead of freezing the suite)."""
    env = {**os.environ, "PYTHONPATH": str(Path(distcfr.__file__).parent.parent)}
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def special_paths(tmp_path) -> dict[str, str]:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    return {"fifo": str(fifo), "character device": "/dev/zero", "symlink loop": str(loop),
            "directory": str(tmp_path)}


def test_show_refuses_what_is_not_a_regular_file(tmp_path):
    expected = {"fifo": "FIFO", "character device": "character device", "symlink loop": "symbolic links",
                "directory": "directory"}
    for name, path in special_paths(tmp_path).items():
        start = time.perf_counter()
        run = run_cli([*SHOW, path])
        assert time.perf_counter() - start < 20, name
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, (name, run.stderr)
        assert expected[name] in run.stderr and path in run.stderr, (name, run.stderr)


def test_resume_refuses_what_is_not_a_regular_file(tmp_path, capsys):
    for name, path in special_paths(tmp_path).items():
        for option in ("--resume", "--checkpoint"):
            run = run_cli([*TRAIN, "--game", "kuhn", option, path, "--iterations", "3", "--workers", "0",
                           "--out", str(tmp_path / "o.msgpack"), "--quiet"])
            assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, (name, option, run.stderr)
            assert path in run.stderr, (name, option, run.stderr)
    assert not (tmp_path / "o.msgpack").exists()


# ---- spec strings ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [" " * 300_000, "kuhn" + " " * 300_000 + "x", "kuhn(" + "a=1," * 100_000 + ")",
                                  "(" * 300_000, "draw27(stacks=" + "1" * 300_000 + ")"])
def test_huge_specs_are_refused_in_milliseconds(tmp_path, capsys, spec):
    start = time.perf_counter()
    rc = train.main(["--game", spec, "--out", str(tmp_path / "o.msgpack"), "--quiet"])
    assert time.perf_counter() - start < 0.5
    err = one_line_exit_2(capsys, rc, "game spec")
    assert len(err) < 400


@pytest.mark.parametrize("stacks, message", [("1:2:1e-320", "infinitely many stacks"),
                                             ("1:2:1e-300", "stacks in one solve"),
                                             ("1:1e308:1e-308", "stacks in one solve"),
                                             ("1:2:5e-324", "infinitely many stacks")])
def test_stack_ranges_that_overflow_are_one_line(tmp_path, capsys, stacks, message):
    rc = train.main(["--game", f"draw27(stacks={stacks})", "--out", str(tmp_path / "o.msgpack"), "--quiet"])
    one_line_exit_2(capsys, rc, message)


# ---- package directions ----------------------------------------------------------------------------
def test_io_imports_nothing_of_evaluate_solve_or_dist():
    folder = Path(distcfr.__file__).parent / "io"
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert not name.startswith(
                    ("distcfr.evaluate", "distcfr.solve", "distcfr.distributed", "ray")), (path, name)


# ---- the sampled solver's files: two more declarations of the same schema machinery ------------------
SAMPLED = "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)"


@pytest.fixture(scope="module")
def sampled_files(tmp_path_factory):
    from distcfr.solve.sampled_solver import SampledSolver

    folder = tmp_path_factory.mktemp("sampled")
    solver = SampledSolver(distcfr.load_game(SAMPLED), batch=200, seed=1, shards=2)
    strategy = solver.solve(iterations=3)
    solver.checkpoint().save(folder / "s.ckpt")
    strategy.save(folder / "s.msgpack")
    return (folder / "s.ckpt").read_bytes(), msgpack.unpackb((folder / "s.msgpack").read_bytes())


def split_checkpoint(data: bytes) -> tuple[dict, bytearray]:
    """A streamed sampled checkpoint's header map and the bytes after it (the tables' chunks)."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    return unpacker.unpack(), bytearray(data[unpacker.tell():])


def test_crafted_sampled_checkpoints_are_one_line(sampled_files, files, tmp_path, capsys):
    import struct
    import zlib

    from distcfr.solve.checkpoint import SampledCheckpoint, load_checkpoint

    data, _ = sampled_files
    head, body = split_checkpoint(data)
    size = struct.unpack(">I", body[1:5])[0]  # the first chunk: bin32 marker and length, bytes, uint32 CRC
    nan = body.copy()
    nan[5 + 12:5 + 16] = np.float32(np.nan).tobytes()
    nan[5 + size + 1:5 + size + 5] = struct.pack(">I", zlib.crc32(nan[5:5 + size]))
    flipped = body.copy()
    flipped[5 + size // 2] ^= 0x10
    cases = {
        "NaN regrets (checksum made to fit)": ({}, nan, "not finite"),
        "a flipped bit": ({}, flipped, "fail their checksum"),
        "truncated": ({}, body[:-7], "truncated"),
        "a chunk moved": ({}, body[5:] + body[:5], "not where the format puts them"),
        "float16 tables": ({"dtype": "<f2"}, body, "'dtype'"),
        "seed as a string": ({"seed": "1"}, body, "'seed'"),
        "more shards than hand classes": ({"shards": 500}, body, "shards for 36 hand classes"),
        "a rule sampling refuses": ({"rule": {"name": "cfr+"}}, body, "not used with sampling"),
        "a game that cannot be sampled": ({"game": "kuhn"}, body, "cannot be sampled"),
        "a bigger game than its tables": ({"game": SAMPLED.replace("2:3:1", "2:9:1")}, body, "where a checkpoint of"),
        "a field of another version": ({"extra": 1}, body, "'extra'"),
        "a field missing": ({"phase": None}, body, "'phase'"),
    }
    for case, (change, tables, message) in cases.items():
        bad = tmp_path / "bad.ckpt"
        bad.write_bytes(pack({k: v for k, v in {**head, **change}.items() if v is not None}) + bytes(tables))
        rc = train.main(["--resume", str(bad), "--iterations", "5", "--out", str(tmp_path / "o.msgpack"), "--quiet",
                         "--workers", "0"])
        one_line_exit_2(capsys, rc, message, case=case)
        assert not (tmp_path / "o.msgpack").exists()
    exact = tmp_path / "exact.ckpt"
    exact.write_bytes(pack(files[1]))
    with pytest.raises(distcfr.BadFile, match="not a distcfr-sampled-checkpoint file"):
        SampledCheckpoint.load(exact)
    sampled = tmp_path / "sampled.ckpt"
    sampled.write_bytes(data)
    with pytest.raises(distcfr.BadFile, match="not of an exact one"):
        Checkpoint.load(sampled)
    assert load_checkpoint(sampled).iteration == head["iteration"]
    earlier = tmp_path / "earlier.ckpt"  # the whole-table format sampled checkpoints had before they streamed
    earlier.write_bytes(pack({"format": "distcfr-checkpoint", "version": 1, "game": SAMPLED, "mode": "sampled"}))
    with pytest.raises(distcfr.BadFile, match="format version 1; this distcfr reads version 2"):
        load_checkpoint(earlier)


def test_crafted_class_strategy_files_are_one_line(sampled_files, tmp_path, capsys):
    _, strategy = sampled_files
    name = next(iter(strategy["tables"]))
    probs = table(strategy["tables"], name)
    nan, unnormalised = probs.copy(), probs.copy()
    nan.flat[0] = np.nan
    unnormalised[..., 0] += np.float16(0.25)
    cases = {
        "NaN probability": ({"tables": {**strategy["tables"], name: array_field(nan)}}, "not finite"),
        "probabilities not summing to one": ({"tables": {**strategy["tables"], name: array_field(unnormalised)}},
                                             "do not sum to one"),
        "float64 table": ({"tables": {**strategy["tables"], name: array_field(probs.astype("<f8"))}}, "expected"),
        "a table missing": ({"tables": {k: v for k, v in strategy["tables"].items() if k != name}}, name),
        "an unknown table": ({"tables": {**strategy["tables"], "extra": strategy["tables"][name]}}, "'tables.extra'"),
        "meta as a list": ({"meta": [1]}, "'meta'"),
        "iterations as a string": ({"meta": {**strategy["meta"], "iterations": "3"}}, "'meta.iterations'"),
        "evaluation as a string": ({"meta": {**strategy["meta"], "evaluation": "good"}}, "'meta.evaluation'"),
        "extension type": ({"meta": {**strategy["meta"], "algorithm": msgpack.ExtType(1, b"x")}}, "extension type"),
        "a game that cannot be sampled": ({"game": "leduc"}, "cannot be sampled"),
    }
    for case, (change, message) in cases.items():
        bad = tmp_path / "bad.msgpack"
        bad.write_bytes(pack({**strategy, **change}))
        one_line_exit_2(capsys, show.main([str(bad)]), message, case=case)


def test_a_game_too_large_to_enumerate_is_refused_before_its_layout(files, tmp_path, capsys):
    strategy, _ = files
    bad = tmp_path / "huge.msgpack"
    bad.write_bytes(pack({**strategy, "game": "draw27(ranks=13,suits=4,hand=5)"}))
    start = time.perf_counter()
    one_line_exit_2(capsys, show.main([str(bad)]), "not solved exactly")
    assert time.perf_counter() - start < 5


# ---- files that cannot lie: checksums over every file kind ------------------------------------------------
@pytest.fixture(scope="module")
def every_kind(files, sampled_files, tmp_path_factory):
    """The bytes of one file of each kind: exact strategy, exact checkpoint, sampled checkpoint, class strategy."""
    strategy, checkpoint = files
    return {"exact strategy": pack(strategy), "exact checkpoint": pack(checkpoint),
            "sampled checkpoint": sampled_files[0], "class strategy": pack(sampled_files[1])}


def read_any(path) -> None:
    """Everything distcfr reads of a file, as a resume or ``show`` reads it (a sampled checkpoint's tables too)."""
    from distcfr.evaluate.load import load_strategy as load_any_strategy
    from distcfr.io.schema import file_format
    from distcfr.solve.checkpoint import load_checkpoint

    if file_format(path) in ("distcfr-strategy", "distcfr-class-strategy"):
        load_any_strategy(path)
        return
    found = load_checkpoint(path)
    if found.mode == "sampled":
        for _ in found.chunks(np.float32):
            pass


def test_every_kind_as_written_is_read(every_kind, tmp_path):
    for data in every_kind.values():
        path = tmp_path / "f"
        path.write_bytes(data)
        read_any(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["exact strategy", "exact checkpoint", "sampled checkpoint", "class strategy"]),
       where=st.floats(0, 1, exclude_max=True), bit=st.integers(0, 7))
def test_a_flipped_bit_anywhere_is_refused_in_one_line(every_kind, tmp_path, kind, where, bit):
    data = bytearray(every_kind[kind])
    at = int(where * len(data))
    data[at] ^= 1 << bit
    path = tmp_path / "flipped"
    path.write_bytes(bytes(data))
    with pytest.raises(distcfr.BadFile) as refused:
        read_any(path)
    assert "\n" not in str(refused.value), str(refused.value)


def test_the_header_is_checked_before_it_is_used(every_kind, tmp_path, capsys):
    """A flipped bit in a checkpoint's seed or iteration, or a strategy's game spec, fails the header's
    checksum: the run would otherwise stop being the run it claims."""
    head, body = split_checkpoint(every_kind["sampled checkpoint"])
    for field, value in (("seed", head["seed"] ^ 4), ("iteration", head["iteration"] ^ 1), ("batch", head["batch"] ^ 8),
                         ("phase", 1 - head["phase"])):
        raw = bytearray(every_kind["sampled checkpoint"])
        old, new = msgpack.packb(field) + msgpack.packb(head[field]), msgpack.packb(field) + msgpack.packb(value)
        assert raw.count(old) == 1 and len(old) == len(new)
        bad = tmp_path / "bad.ckpt"
        bad.write_bytes(bytes(raw).replace(old, new))
        rc = train.main(["--resume", str(bad), "--iterations", "5", "--out", str(tmp_path / "o.msgpack"), "--quiet",
                         "--workers", "0"])
        one_line_exit_2(capsys, rc, "its header fails its checksum", case=field)
    data = every_kind["exact strategy"].replace(b"leduc", b"leduk")
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(data)
    one_line_exit_2(capsys, show.main([str(bad)]), "its header fails its checksum")


def _unchecked(data: bytes, version: int = 1) -> bytes:
    """A file as the previous version wrote it: the same map without checksums."""
    obj = msgpack.unpackb(data)
    return pack_plain({**{k: v for k, v in obj.items() if k not in ("header_crc", "crc")}, "version": version})


def pack_plain(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def test_strategy_files_of_the_previous_version_are_still_read(every_kind, tmp_path, capsys):
    from distcfr.evaluate.load import load_strategy as load_any_strategy

    for kind in ("exact strategy", "class strategy"):
        path = tmp_path / "old.msgpack"
        path.write_bytes(_unchecked(every_kind[kind]))
        assert load_any_strategy(path).meta["unchecked"] == 1
        assert show.main([str(path)]) == 0
        assert "version 1 file, written before files carried checksums: read unchecked" in capsys.readouterr().err
        path.write_bytes(_unchecked(every_kind[kind], version=3))
        one_line_exit_2(capsys, show.main([str(path)]), "version 3", "reads version 2 (and 1 unchecked)")


def test_checkpoints_of_the_previous_version_are_refused_by_name(every_kind, tmp_path, capsys):
    for kind in ("exact checkpoint", "sampled checkpoint"):
        head, body = split_checkpoint(every_kind[kind])
        path = tmp_path / "old.ckpt"
        path.write_bytes(_unchecked(pack_plain(head)) + bytes(body))
        rc = train.main(["--resume", str(path), "--iterations", "50", "--out", str(tmp_path / "o.msgpack"), "--quiet",
                         "--workers", "0"])
        one_line_exit_2(capsys, rc, "format version 1; this distcfr reads version 2", case=kind)


@pytest.mark.parametrize("change, message", [
    ({"value": "abc"}, "'meta.evaluation.value'"),
    ({"value": [1, 2]}, "'meta.evaluation.value'"),
    ({"value": math.inf}, "'meta.evaluation.value'"),
    ({"value_se": -1.0}, "'meta.evaluation.value_se'"),
    ({"exploitability_ci": [0.1]}, "'meta.evaluation.exploitability_ci' has 1 items, expected 2"),
    ({"exploitability_ci": ["a", "b"]}, "'meta.evaluation.exploitability_ci'"),
    ({"exploitability_estimates": 0.5}, "'meta.evaluation.exploitability_estimates'"),
    ({"exploitability": {"a": 1}}, "'meta.evaluation.exploitability'"),
    ({"notes": "x"}, "'meta.evaluation.notes'"),
    ({"variant": None}, "'meta.evaluation.variant'"),
])
def test_a_stored_evaluation_of_the_wrong_type_is_one_line(sampled_files, tmp_path, capsys, change, message):
    _, strategy = sampled_files
    rows = [{"variant": label, "value": 0.1, "value_se": 0.01, "exploitability": 0.2, "exploitability_ci": [0.1, 0.3],
             "exploitability_estimates": [0.15, 0.2]} for label in distcfr.load_game(SAMPLED).variant_labels]
    good = tmp_path / "good.msgpack"
    good.write_bytes(pack({**strategy, "meta": {**strategy["meta"], "evaluation": rows}}))
    assert show.main([str(good)]) == 0 and "+0.1000 +- 0.0100" in capsys.readouterr().out
    meta = {**strategy["meta"], "evaluation": [{**rows[0], **change}, *rows[1:]]}
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(pack({**strategy, "meta": meta}))
    for argv in ([str(bad)], [str(bad), "--format", "json"]):
        one_line_exit_2(capsys, show.main(argv), message, case=str(change))


def test_a_short_file_naming_a_huge_game_allocates_nothing(sampled_files, files, tmp_path, capsys):
    """The reader reads the file's own size: a 25 kB file naming the 5-card game with 1,000 stacks, or a
    checkpoint naming a 1,000-stack game, is refused in one line under a 3 GB address-space limit."""
    _, strategy = sampled_files
    huge = tmp_path / "huge.msgpack"
    huge.write_bytes(pack({**strategy, "game": "draw27(ranks=13,suits=4,hand=5,stacks=1:1000:1)"}) + b"\x00" * 25_000)
    short = tmp_path / "short.ckpt"
    short.write_bytes(pack({**files[1], "game": "draw27(stacks=1:1000:1)"}))
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
            "from distcfr import show; sys.exit(show.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, str(huge)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "needs at least 61,3" in done.stderr or "needs about" in done.stderr, done.stderr
    rc = train.main(["--resume", str(short), "--iterations", "50", "--out", str(tmp_path / "o.msgpack"), "--quiet",
                     "--workers", "0"])
    one_line_exit_2(capsys, rc, "needs at least")


def test_a_sampled_checkpoint_beyond_its_magnitude_is_one_line(sampled_files, tmp_path, capsys):
    import struct
    import zlib

    head, body = split_checkpoint(sampled_files[0])
    size = struct.unpack(">I", body[1:5])[0]
    big = body.copy()
    big[5:5 + size] = np.full(size // 4, 3.4e38, dtype="<f4").tobytes()
    big[5 + size + 1:5 + size + 5] = struct.pack(">I", zlib.crc32(big[5:5 + size]))
    bad = tmp_path / "big.ckpt"
    bad.write_bytes(pack(head) + bytes(big))
    rc = train.main(["--resume", str(bad), "--iterations", "5", "--out", str(tmp_path / "o.msgpack"), "--quiet",
                     "--workers", "0"])
    one_line_exit_2(capsys, rc, "beyond the 1e+30")


def test_iterations_are_bounded_by_what_the_files_hold():
    from distcfr.io.schema import MAX_ITERATION
    from distcfr.solve.run import RunPlan

    assert MAX_ITERATION == 2**31 - 1
    RunPlan(iterations=MAX_ITERATION)
    with pytest.raises(distcfr.BadParameter, match="2147483647"):
        RunPlan(iterations=MAX_ITERATION + 1)

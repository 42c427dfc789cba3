"""distcfr.io.schema on its own: a new file kind is one declaration, and its limits come from
the dimensions the reader declares."""

import msgpack
import numpy as np
import pytest

from distcfr.errors import BadFile
from distcfr.io.paths import write_atomic
from distcfr.io.schema import Array, Float, Int, List, Schema, Str, read_file, seal_map

# e.g. compact per-class float16 strategy tables of a sampled game: the header says how many classes
COMPACT = Schema("distcfr-compact-test", 1, header={"game": Str(256), "classes": Int(1, 1 << 20)}, body={
    "labels": List(Str(16), length="classes"),
    "probabilities": Array("<f2", ("classes", "actions"), values="distribution"),
    "temperature": Float(lo=0.0),
})


def dims_of(header) -> dict:
    legal = np.ones((header["classes"], 3), dtype=bool)
    legal[:, 2] = False
    return {"game": header["game"], "classes": header["classes"], "actions": 3, "legal": legal}


def compact(n: int) -> dict:
    probs = np.zeros((n, 3), dtype="<f2")
    probs[:, 0], probs[:, 1] = 0.3, 0.7
    return {"game": "sampled5", "classes": n, "labels": [f"c{i}" for i in range(n)], "probabilities": probs,
            "temperature": 1.0}


def test_a_new_file_kind_round_trips(tmp_path):
    path = tmp_path / "c.msgpack"
    write_atomic(path, COMPACT.encode(compact(50)))
    values = read_file(COMPACT, path, dims_of)
    assert values["game"] == "sampled5" and values["classes"] == 50 and values["labels"][-1] == "c49"
    assert values["probabilities"].dtype == np.float16 and values["probabilities"].shape == (50, 3)


@pytest.mark.parametrize("change, message", [
    ({"classes": 0}, "'classes'"),
    ({"classes": 49}, "longer than"),
    ({"temperature": float("nan")}, "'temperature'"),
    ({"temperature": -1.0}, "'temperature'"),
    ({"labels": ["x" * 17] * 50}, "longer than 16"),
    ({"probabilities": np.full((50, 3), 0.5, dtype="<f2")}, "not legal"),
    ({"probabilities": np.full((50, 3), 0.3, dtype="<f2") * np.array([1, 1, 0], dtype="<f2")}, "sum to one"),
    ({"probabilities": np.zeros((25, 3), dtype="<f4")}, "expected (50, 3) of <f2"),
    ({"probabilities": np.zeros((50, 3), dtype="<f8")}, "longer than"),  # more bytes than the game's table
])
def test_a_new_file_kind_is_checked(tmp_path, change, message):
    values = {**compact(50), **change}
    obj = {"format": COMPACT.kind, "version": 1, **values}
    obj["probabilities"] = {"dtype": values["probabilities"].dtype.str, "shape": list(values["probabilities"].shape),
                            "data": values["probabilities"].tobytes()}
    path = tmp_path / "c.msgpack"
    path.write_bytes(seal_map(obj, n_header=4))
    with pytest.raises(BadFile) as raised:
        read_file(COMPACT, path, dims_of)
    assert message in str(raised.value)


def test_limits_follow_the_declared_dimensions(tmp_path):
    """A file whose header declares 10 classes cannot hold a list of 11 labels, nor be
    larger than 10 classes need, whatever else it says."""
    path = tmp_path / "c.msgpack"
    values = compact(10)
    data = COMPACT.encode(values)
    obj = msgpack.unpackb(data)
    path.write_bytes(seal_map({**obj, "labels": values["labels"] + ["c10"]}))
    with pytest.raises(BadFile, match="longer than"):
        read_file(COMPACT, path, dims_of)
    path.write_bytes(data + b"\x00" * 4096)
    with pytest.raises(BadFile, match="more than a distcfr-compact-test file of sampled5 can be"):
        read_file(COMPACT, path, dims_of)

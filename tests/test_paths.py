"""Files distcfr writes get the user's umask, as any new file would (mkstemp's 0o600 is for the
temporary file only), also when they replace a file."""

import os
import stat

import pytest

from distcfr.evaluate.strategy import Strategy
from distcfr.games.registry import load_game
from distcfr.io import paths


@pytest.fixture
def umask():
    """``umask(mask)`` sets the process's umask for the test; the old one comes back after it."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0o027])
def test_a_new_file_gets_0666_less_the_umask(tmp_path, umask, mask):
    umask(mask)
    paths.write_atomic(tmp_path / "f.json", b"{}\n")
    assert mode(tmp_path / "f.json") == 0o666 & ~mask
    assert paths.current_umask() == mask


def test_a_replaced_file_gets_the_mode_of_a_new_one(tmp_path, umask):
    target = tmp_path / "f.json"
    target.write_bytes(b"old")
    target.chmod(0o600)
    umask(0o022)
    paths.write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and mode(target) == 0o644


def test_a_strategy_file_gets_the_umask(tmp_path, umask):
    umask(0o022)
    Strategy.from_dict(load_game("kuhn"), {}).save(tmp_path / "s.msgpack")
    assert mode(tmp_path / "s.msgpack") == 0o644


def test_the_umask_is_read_without_proc_too(monkeypatch, umask):
    def no_proc(*args, **kwargs):
        raise FileNotFoundError("/proc/self/status")

    umask(0o027)
    monkeypatch.setattr(paths, "open", no_proc, raising=False)  # found before the builtin
    assert paths.current_umask() == 0o027
    assert os.umask(0o027) == 0o027  # and it is left as it was

"""Writes that fail: a full disk mid-write, a read-only or special file system, a path that is
not a regular file. One line naming the path and the reason, exit 2, the previous file at the
path intact and no temporary file left behind."""

import errno
import os
import tempfile
from pathlib import Path

import pytest

from distcfr import train
from distcfr.errors import BadParameter
from distcfr.io import paths


def one_line_exit_2(capsys, rc, *expected) -> str:
    err = capsys.readouterr().err
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in err, err
    return err


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def disk_fills_up(monkeypatch):
    """``fill(name)``: from now on, a write to the temporary file of a target called ``name``
    writes part of its data, then fails with ENOSPC (the disk filled up mid-write)."""
    real_write = os.write
    names = []

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if any(Path(target).name.startswith(f".{name}.") for name in names):
            if len(data) > 1:
                return real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    return names.append


pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")

KUHN = ["--game", "kuhn", "--iterations", "20", "--workers", "0", "--quiet", "--no-tables"]


@pytest.mark.parametrize("option", ["--out", "--summary-json", "--plot"])
def test_full_disk_keeps_the_previous_output(tmp_path, capsys, disk_fills_up, option):
    if option == "--plot":
        pytest.importorskip("matplotlib")
    target = tmp_path / "target"
    target.write_bytes(b"previous result")
    argv = [*KUHN, "--out", str(tmp_path / "s.msgpack"), option, str(target)]
    disk_fills_up(target.name)
    one_line_exit_2(capsys, train.main(argv), str(target), "no space left")
    assert target.read_bytes() == b"previous result"
    assert leftovers(tmp_path) == []


def test_full_disk_keeps_the_previous_checkpoint(tmp_path, capsys, monkeypatch, disk_fills_up):
    ckpt, out = tmp_path / "run.ckpt", tmp_path / "s.msgpack"
    argv = [*KUHN, "--out", str(out), "--checkpoint", str(ckpt), "--checkpoint-every", "5"]
    assert train.main([*argv[:3], "5", *argv[4:]]) == 0  # a run stopped at iteration 5
    previous = ckpt.read_bytes()
    capsys.readouterr()
    disk_fills_up(ckpt.name)
    one_line_exit_2(capsys, train.main(argv), str(ckpt), "no space left")
    assert ckpt.read_bytes() == previous
    assert leftovers(tmp_path) == []
    # the disk has room again: the same command line resumes from the checkpoint kept
    monkeypatch.undo()
    assert train.main(argv) == 0
    assert train.main([*KUHN, "--out", str(tmp_path / "straight.msgpack")]) == 0
    assert out.read_bytes() == (tmp_path / "straight.msgpack").read_bytes()


@pytest.mark.parametrize("option", ["--out", "--summary-json", "--checkpoint", "--plot"])
def test_special_file_systems_are_one_line(tmp_path, capsys, option):
    if option == "--plot":
        pytest.importorskip("matplotlib")
    target = "/proc/distcfr-test-output"
    argv = [*KUHN, "--out", str(tmp_path / "s.msgpack"), option, target]
    one_line_exit_2(capsys, train.main(argv), target)
    assert not (tmp_path / "s.msgpack").exists()  # refused before the solve


def test_outputs_that_are_not_regular_files_are_refused(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for target, reason in ((fifo, "FIFO"), (Path("/dev/null"), "character device"), (loop, "symbolic links"),
                           (tmp_path, "directory"), (tmp_path / "no" / "s.msgpack", "does not exist")):
        one_line_exit_2(capsys, train.main([*KUHN, "--out", str(target)]), str(target), reason)
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("call, err, reason", [
    ("replace", errno.EROFS, "read-only file system"),
    ("fsync", errno.EDQUOT, "disk quota exceeded"),
    ("fsync", errno.EIO, "input/output error"),
    ("close", errno.ENOSPC, "no space left"),
    ("mkstemp", errno.EACCES, "permission denied"),
    ("mkstemp", errno.EROFS, "read-only file system"),
])
def test_write_atomic_classifies_os_errors(tmp_path, monkeypatch, call, err, reason):
    target = tmp_path / "file.bin"
    target.write_bytes(b"previous")

    def fail(*args, **kwargs):
        raise OSError(err, os.strerror(err))

    if call == "mkstemp":
        monkeypatch.setattr(tempfile, "mkstemp", fail)
    elif call == "close":
        real_close = os.close

        def close(fd):
            real_close(fd)
            fail()

        monkeypatch.setattr(paths.os, "close", close)
    else:
        monkeypatch.setattr(paths.os, call, fail)
    with pytest.raises(BadParameter) as raised:
        paths.write_atomic(target, b"new contents")
    monkeypatch.undo()
    assert str(target) in str(raised.value) and reason in str(raised.value)
    assert len(str(raised.value).splitlines()) == 1
    assert target.read_bytes() == b"previous"
    assert leftovers(tmp_path) == []


def test_write_atomic_replaces_a_file_whole(tmp_path):
    target = tmp_path / "file.bin"
    target.write_bytes(b"previous")
    paths.write_atomic(target, b"x" * 1_000_000)
    assert target.read_bytes() == b"x" * 1_000_000 and leftovers(tmp_path) == []

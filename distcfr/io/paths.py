"""Every file distcfr reads or writes goes through here, and so does every OSError they raise:
one place decides what a path that is not a regular file, a full disk or a read-only file
system means to the user (one line naming the path and the reason), and one place writes
atomically so a failed write leaves the previous file as it was.

* Reading opens without blocking (``O_NONBLOCK``), then checks with ``fstat`` that the path
  is a regular file: a FIFO, a character device (/dev/zero) or a socket is refused at once
  instead of blocking or streaming forever.
* Writing goes to a temporary file beside the target, is flushed to disk, then renamed over
  the target; the temporary file is removed on any failure. The file gets the mode any new
  file would (0o666 less the umask), also when it replaces one: ``mkstemp``'s 0o600 is only
  for the temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from distcfr.errors import BadFile, BadParameter, DistcfrError

# errno -> the reason given to the user; what to do about it is the caller's context
_REASONS = {
    errno.ENOENT: "no such file or folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EISDIR: "it is a directory",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ELOOP: "too many levels of symbolic links (a symlink loop?)",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EFBIG: "the file is too large for its file system",
    errno.EIO: "input/output error (a failing disk or network file system?)",
    errno.ENXIO: "no such device",
    errno.ENODEV: "no such device",
    errno.ETXTBSY: "the file is busy",
    errno.EBUSY: "the file or device is busy",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files",
    errno.EXDEV: "the temporary file and the target are on different file systems",
    errno.ESTALE: "stale network file handle",
    errno.EINVAL: "the file system does not support this operation",
}


def reason(err: OSError) -> str:
    """A short human reason for an OSError."""
    return _REASONS.get(err.errno, err.strerror or type(err).__name__)


def read_error(path, err: OSError) -> DistcfrError:
    """The one-line error for an OSError raised while reading ``path``."""
    if err.errno == errno.ENOENT:
        return BadParameter(f"no such file: {path}")
    if err.errno == errno.EISDIR:
        return BadParameter(f"{path} is a directory, not a file")
    if err.errno in (errno.EIO, errno.ESTALE):
        return BadFile(f"cannot read {path}: {reason(err)}")
    return BadParameter(f"cannot read {path}: {reason(err)}")


def write_error(path, err: OSError) -> DistcfrError:
    """The one-line error for an OSError raised while writing ``path``."""
    path = Path(path)
    folder = path.parent
    if err.errno == errno.ENOENT:
        if not folder.is_dir():
            return BadParameter(f"cannot write {path}: folder {folder} does not exist")
        return BadParameter(f"cannot write {path}: files cannot be created in {folder} (a special file system?)")
    if err.errno == errno.EISDIR:
        return BadParameter(f"cannot write {path}: it is a directory")
    return BadParameter(f"cannot write {path}: {reason(err)}")


def describe_mode(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def open_for_read(path) -> tuple[BinaryIO, int]:
    """(binary file, size in bytes) of the regular file at ``path``, without ever blocking on
    what is not one; BadParameter (one line) for anything else or any OS error."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        raise read_error(path, err) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = describe_mode(info.st_mode)
            if kind == "a directory":
                raise BadParameter(f"{path} is a directory, not a file")
            raise BadParameter(f"cannot read {path}: it is {kind}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", closefd=True), info.st_size
    except BaseException:
        os.close(fd)
        raise


def read_exactly(handle: BinaryIO, n: int, path) -> bytes:
    """``n`` bytes from ``handle`` (fewer only at the end of the file)."""
    try:
        return handle.read(n)
    except OSError as err:
        raise read_error(path, err) from None


def _check_target(path: Path) -> None:
    """The target may be a regular file or nothing yet, in a folder that exists."""
    try:
        info = os.stat(path)
    except OSError as err:
        if err.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise write_error(path, err) from None
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise BadParameter(f"cannot write {path}: it is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise BadParameter(f"cannot write {path}: it is {describe_mode(info.st_mode)}, not a regular file")
    if not path.parent.is_dir():
        raise BadParameter(f"cannot write {path}: folder {path.parent} does not exist")


def current_umask() -> int:
    """The process's umask. Linux shows it in /proc/self/status; elsewhere it is read by setting
    it and setting it back, which is racy: a file another thread creates in between gets the
    umask 0o022 (acceptable here: distcfr's threads do not create files meanwhile)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _through_links(path: Path) -> Path:
    """Where a write to ``path`` lands: a symlink's target (the file the user means), not a new
    file in the link's place."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _temporary_beside(path: Path) -> tuple[int, str]:
    try:
        return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise write_error(path, err) from None


def check_writable(path) -> Path:
    """Fail early (before a long solve) when ``path`` cannot be written: the folder must exist,
    the path must not be a directory or a special file, and a file must be creatable beside
    it (a real probe: permission bits do not show read-only or special file systems)."""
    shown, path = path, _through_links(Path(path))
    _check_target(path)
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        if os.access(path.parent, os.W_OK) or not _read_only(path.parent):
            raise BadParameter(f"cannot write {shown}: permission denied")
        raise BadParameter(f"cannot write {shown}: {_REASONS[errno.EROFS]}")
    fd, probe = _temporary_beside(path)
    os.close(fd)
    os.unlink(probe)
    return path


def partial_writes(path) -> str:
    """A glob of the temporary files that writes of ``path`` leave behind when their process ends
    mid-way (without unwinding: ``os._exit``, a kill)."""
    path = _through_links(Path(path))
    return os.path.join(glob.escape(str(path.parent)), glob.escape(f".{path.name}.") + "*.tmp")


def write_atomic(path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as out:
        out.write(payload)


@contextlib.contextmanager
def atomic_writer(path) -> Iterator[_Writer]:
    """A binary file to write in pieces, left at ``path`` only when the block ends without an
    error: it is a temporary file beside ``path``, flushed to disk, then renamed over it. On any
    failure (a full disk mid-write, a signal) the temporary file is removed and the file at
    ``path`` is as it was; an OSError becomes one line (BadParameter) naming the path and why."""
    path = _through_links(Path(path))
    _check_target(path)
    fd, tmp = _temporary_beside(path)
    try:
        try:
            if hasattr(os, "fchmod"):  # not on Windows before Python 3.13
                os.fchmod(fd, 0o666 & ~current_umask())
            yield _Writer(fd)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise write_error(path, err) from None
        raise
    _sync_folder(path.parent)


class _Writer:
    """Unbuffered writes to a file descriptor, each written whole."""

    def __init__(self, fd: int):
        self.fd = fd

    def write(self, data) -> None:
        view = memoryview(data).cast("B")
        while view:
            view = view[os.write(self.fd, view):]


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows it (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

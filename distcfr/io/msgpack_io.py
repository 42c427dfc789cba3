"""msgpack files: versioned maps, numpy arrays as raw bytes + dtype + shape, atomic writes,
and reading with size limits so a corrupt or crafted file cannot exhaust memory. Nothing is
ever unpickled."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import msgpack
import numpy as np

from distcfr.errors import BadFile, BadParameter

MAX_FILE_BYTES = 8 << 30  # refuse anything larger outright
ALLOWED_DTYPES = {"<f8", "<f4", "<f2", "<i8", "<i4", "|u1", "|b1"}


def pack_array(array: np.ndarray) -> dict:
    array = np.ascontiguousarray(array)
    dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    return {"dtype": dtype.str, "shape": list(array.shape), "data": array.astype(dtype, copy=False).tobytes()}


def unpack_array(obj, what: str) -> np.ndarray:
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise BadFile(f"{what} is not an encoded array")
    dtype, shape, data = obj["dtype"], obj["shape"], obj["data"]
    if dtype not in ALLOWED_DTYPES:
        raise BadFile(f"{what} has unsupported dtype {dtype!r}")
    if not isinstance(shape, list) or not all(isinstance(s, int) and 0 <= s < 2**40 for s in shape):
        raise BadFile(f"{what} has an invalid shape")
    if not isinstance(data, bytes | bytearray):
        raise BadFile(f"{what} has no byte data")
    expected = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    if expected != len(data):
        raise BadFile(f"{what}: {len(data)} bytes for shape {shape} of {dtype} (truncated or corrupt)")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def check_writable(path) -> Path:
    """Fail early (before a long solve) when ``path`` cannot be written."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise BadParameter(f"cannot write {path}: it is a directory")
    if not folder.is_dir():
        raise BadParameter(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise BadParameter(f"cannot write {path}: permission denied")
    return path


def write_atomic(path, payload: bytes) -> None:
    """Write to a temporary file beside ``path``, flush it to disk, then rename over ``path``."""
    path = check_writable(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_map(path, kind: str, version: int, fields: dict) -> None:
    """Write a versioned msgpack map ``{"format": kind, "version": version, **fields}``."""
    payload = msgpack.packb({"format": kind, "version": version, **fields}, use_bin_type=True)
    write_atomic(path, payload)


def read_map(path, kind: str, version: int) -> dict:
    """Read a file written by ``write_map``; BadFile for anything else."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise BadFile(f"{path} is {size} bytes, larger than any distcfr file may be")
        data = path.read_bytes()
    except FileNotFoundError:
        raise BadParameter(f"no such file: {path}") from None
    except IsADirectoryError:
        raise BadParameter(f"{path} is a directory, not a file") from None
    except PermissionError:
        raise BadParameter(f"cannot read {path}: permission denied") from None
    limit = len(data)  # no container or string can be longer than the file itself
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True, max_bin_len=limit, max_str_len=limit,
                              max_array_len=limit, max_map_len=limit, max_ext_len=0)
    except Exception as err:  # msgpack raises several types for corrupt input
        raise BadFile(f"{path} is not a distcfr file (corrupt or truncated msgpack: {type(err).__name__})") from None
    if kind is None and isinstance(obj, dict):
        return obj
    if not isinstance(obj, dict) or obj.get("format") != kind:
        found = obj.get("format") if isinstance(obj, dict) else None
        raise BadFile(f"{path} is not a {kind} file" + (f" (it is {found!r})" if found else ""))
    if obj.get("version") != version:
        raise BadFile(f"{path} has {kind} format version {obj.get('version')!r}; this distcfr reads version {version}")
    return obj


def require(obj: dict, key: str, types, path) -> object:
    value = obj.get(key)
    if not isinstance(value, types):
        raise BadFile(f"{path}: field {key!r} is missing or has the wrong type")
    return value


def file_format(path) -> str | None:
    """The ``format`` a distcfr file declares (None for anything else); errors as ``read_map``'s."""
    try:
        return read_map(path, None, None).get("format")
    except BadFile:
        return None

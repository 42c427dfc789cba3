"""A sampled solve's checkpoint, written and read as a stream (its tables reach 10 GB for a stack
sweep of the 5-card game: neither side ever holds one whole).

The file is a msgpack map (format, version, the game spec, then the run's small fields), followed
by every table in the order the reader names, cut into chunks of whole rows: each chunk a msgpack
bin (its raw little-endian bytes) followed by the CRC-32 of those bytes as a msgpack uint32. The
reader derives every table's shape from the game the header names, so it knows the exact length
of the file and of each chunk before reading any of them: a crafted or truncated file is refused
without allocating more than one chunk, and a flipped bit fails its chunk's checksum.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import msgpack
import numpy as np

from distcfr.errors import BadFile
from distcfr.io.paths import atomic_writer, read_exactly
from distcfr.io.schema import (
    MAX_ITERATION,
    Context,
    Int,
    List,
    Opt,
    Schema,
    SchemaFile,
    Str,
    check_fields,
    check_values,
    sealed,
)
from distcfr.io.strategy_file import GAME_SPEC, RULE

KIND = "distcfr-sampled-checkpoint"
VERSION = 2  # 2: the header map sealed by checksums (io.schema.seal); version 1 files are refused by name
CHUNK_BYTES = 1 << 26  # a chunk is as many whole rows as fit in 64 MiB (at least one)
_BIN32, _UINT32 = 0xC6, 0xCE  # msgpack markers: bin with a 4-byte length, unsigned 32-bit integer
_CHUNK_HEAD, _CHUNK_TAIL = 5, 5  # marker and length before the bytes; marker and CRC after them
TABLE_DTYPES = ("<f4", "<f8")  # a sampled solver's tables (float32 unless asked otherwise)

MAX_DEAL_SHARE = 64  # a player's half draws at most this many deals per deal of the batch (the solver checks it)

SCHEMA = Schema(KIND, VERSION, header={"game": GAME_SPEC}, body={
    "rule": RULE,
    "seed": Int(0, 2**63 - 1),
    "batch": Int(1, 2**40),
    "shards": Int(1, 2**40),
    "iteration": Int(0, MAX_ITERATION),
    "phase": Int(0, 1),  # the player who updates next
    "deal_shares": Opt(List(Int(1, MAX_DEAL_SHARE), length=2)),  # (button, big blind) deals per batch deal; absent: 1:1
    "dtype": Str(8, choices=TABLE_DTYPES),  # every table's
    "chunk_bytes": Int(1, 2**31),  # rows per chunk: max(1, chunk_bytes // bytes per row)
})


@dataclass(frozen=True)
class TableSpec:
    """One table of the file: its name, shape (rows first) and what its values must be
    ("finite" or "nonnegative")."""

    name: str
    shape: tuple[int, ...]
    values: str


def chunks(table: TableSpec, dtype: str, chunk_bytes: int) -> list[tuple[int, int]]:
    """The [lo, hi) row ranges the file cuts ``table`` into."""
    step = max(1, chunk_bytes // max(1, _row_bytes(table, dtype)))
    rows = table.shape[0]
    return [(lo, min(lo + step, rows)) for lo in range(0, rows, step)]


def write_sampled_checkpoint(path, fields: dict, tables: Sequence[TableSpec], dtype: str,
                             rows: Callable[[list[tuple[str, int, int]]], Iterator[np.ndarray]]) -> None:
    """Write a checkpoint atomically: ``fields`` (the schema's, less dtype and chunk size), then
    every table of ``tables`` in order, its chunks asked of ``rows`` (given the (table, lo, hi)
    requests in order, it yields each chunk's rows: a caller may fetch ahead)."""
    head = SCHEMA.encode({**fields, "dtype": dtype, "chunk_bytes": CHUNK_BYTES})
    requests = [(t.name, lo, hi) for t in tables for lo, hi in chunks(t, dtype, CHUNK_BYTES)]
    shapes = {t.name: t.shape[1:] for t in tables}
    with atomic_writer(path) as out:
        out.write(head)
        for (name, lo, hi), array in zip(requests, rows(requests), strict=True):
            data = np.ascontiguousarray(array, dtype=dtype)
            assert data.shape == (hi - lo, *shapes[name]), (name, data.shape)
            view = memoryview(data).cast("B")
            out.write(struct.pack(">BI", _BIN32, len(view)))
            out.write(view)
            out.write(struct.pack(">BI", _UINT32, zlib.crc32(view)))


class SampledCheckpointFile:
    """A sampled checkpoint opened for reading: ``header`` (the game spec) on opening; then
    ``read_fields(dims, tables)`` checks the run's fields and the file's exact length, and
    ``tables()`` yields each chunk, checked, as (table name, first row, rows)."""

    def __init__(self, path):
        self.path = path
        self.file = SchemaFile(SCHEMA, path)
        self.header = self.file.header
        self.fields: dict | None = None

    def __enter__(self) -> SampledCheckpointFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.file.close()

    def read_fields(self, dims: dict, tables: Sequence[TableSpec]) -> dict:
        """The run's fields, checked with the declared game's ``dims``; BadFile unless the file
        is exactly as long as its header and ``tables`` (the game's, in order) make it."""
        path, head = self.path, self.file.head
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, max_buffer_size=len(head) or 1,
                                    max_str_len=4096, max_bin_len=0, max_array_len=64, max_map_len=64, max_ext_len=0)
        unpacker.feed(head)
        try:
            obj = unpacker.unpack()
        except Exception:  # msgpack raises several types for corrupt input
            raise BadFile(f"{path}: its header is corrupt or longer than {len(head)} bytes") from None
        if not isinstance(obj, dict):
            raise BadFile(f"{path} is not a {KIND} file")
        if not sealed(head[:unpacker.tell()]):
            raise BadFile(f"{path}: its header fails its checksum (the file is corrupt)")
        fields = check_fields(SCHEMA.fields, obj, Context(path, dims))
        self.offset, self._tables = unpacker.tell(), list(tables)
        self.dtype, self.chunk_bytes = fields["dtype"], fields["chunk_bytes"]
        expected = self.offset + sum((hi - lo) * _row_bytes(t, self.dtype) + _CHUNK_HEAD + _CHUNK_TAIL
                                     for t in tables for lo, hi in chunks(t, self.dtype, self.chunk_bytes))
        if self.file.size != expected:
            what = "truncated" if self.file.size < expected else "longer than its tables"
            raise BadFile(f"{path} is {self.file.size:,} bytes where a checkpoint of {dims.get('game')} is "
                          f"{expected:,} ({what}: corrupt, or not this game's)")
        self.fields = {k: v for k, v in fields.items()
                       if k not in ("format", "version", "dtype", "chunk_bytes", "header_crc", "crc")}
        return self.fields

    def tables(self) -> Iterator[tuple[str, int, np.ndarray]]:
        """Each chunk in file order as (table name, first row, array), after checking its length,
        checksum and values (BadFile naming the table and rows otherwise)."""
        assert self.fields is not None, "read_fields first"
        handle, path = self.file.handle, self.path
        handle.seek(self.offset)
        ctx = Context(path, {})
        for table in self._tables:
            for lo, hi in chunks(table, self.dtype, self.chunk_bytes):
                where = f"{table.name} rows {lo}..{hi - 1}"
                size = (hi - lo) * _row_bytes(table, self.dtype)
                head = read_exactly(handle, _CHUNK_HEAD, path)
                data = read_exactly(handle, size, path)
                tail = read_exactly(handle, _CHUNK_TAIL, path)
                if head != struct.pack(">BI", _BIN32, size) or len(data) != size or tail[:1] != bytes([_UINT32]) \
                        or len(tail) != _CHUNK_TAIL:
                    raise BadFile(f"{path}: {where} are not where the format puts them (corrupt or crafted)")
                if struct.unpack(">I", tail[1:])[0] != zlib.crc32(data):
                    raise BadFile(f"{path}: {where} fail their checksum (the file is corrupt)")
                array = np.frombuffer(data, dtype=self.dtype).reshape(hi - lo, *table.shape[1:])
                check_values(array, table.values, ctx, where)
                yield table.name, lo, array


def _row_bytes(table: TableSpec, dtype: str) -> int:
    return int(np.prod(table.shape[1:], dtype=np.int64)) * np.dtype(dtype).itemsize

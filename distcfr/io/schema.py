"""The one place where a distcfr file is checked: declarative schemas of msgpack files.

A file is a msgpack map ``{"format": kind, "version": n, <header fields>, <body fields>}``.
Reading one is two steps:

1. ``open_file`` reads only the first bytes of the file and decodes the header (small fields
   such as the game spec, written first) with tight limits;
2. the caller turns the header into the declared game's dimensions (``dims``: table sizes,
   labels, legal actions; see ``game_dims``), and ``SchemaFile.read(dims)`` reads the rest.
   The file may not be longer (nor shorter than its arrays), and no string, binary, array or
   map in it may be longer, than the schema allows for that game; nothing is ever unpickled
   or decoded as an extension type. Before any of that, the file's checksums are checked
   (``seal``: one over the header before a header field is used, one over the whole file).
   Every field is then checked against its declaration (type, bounds, array dtype and shape,
   finite values, probability distributions over the legal actions) and a BadFile (one line)
   names the first that is wrong.

A new file kind is one more ``Schema`` declaration: fields built from the types below, with
sizes given as numbers or as names of dimensions the reader supplies.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack
import numpy as np

from distcfr.errors import BadFile
from distcfr.io.paths import open_for_read, read_exactly

Bound = int | str  # a number, or the name of one of the dimensions given to SchemaFile.read
HEAD_BYTES = 1 << 16  # the header (format, version, game spec) is read from at most this many bytes
MAX_INT = 2**53  # integers above this cannot be counts of anything a run did
MAX_ITERATION = 2**31 - 1  # iterations a run may reach: int32 counters, float64 weights up to t^3 stay exact
MAX_TABLE = 1e30  # no regret, sum or prediction of a real run comes near (float32 tops at 3.4e38)
HEADER_CRC, CRC = "header_crc", "crc"  # the checksums of a checked file (see ``seal``)
_CRC_TAIL = b"\xa3crc\xce"  # the key "crc" and a uint32 marker: the last entry of a sealed map
_TOLERANCE = 1e-6  # how far a row of probabilities may sum from one


@dataclass
class Limits:
    """The largest msgpack string (bytes), binary, array and map a file may contain."""

    str: int = 0
    bin: int = 0
    array: int = 0
    map: int = 0

    def merge(self, other: Limits) -> Limits:
        return Limits(max(self.str, other.str), max(self.bin, other.bin), max(self.array, other.array),
                      max(self.map, other.map))


class Context:
    """What a check needs: the file's path (for messages) and the declared game's dimensions."""

    def __init__(self, path, dims: Mapping[str, Any]):
        self.path, self.dims = path, dims

    def size(self, bound: Bound) -> int:
        if isinstance(bound, int):
            return bound
        value = self.dims.get(bound)
        if not isinstance(value, int):
            raise KeyError(f"schema dimension {bound!r} was not given")
        return value

    def fail(self, name: str, problem: str) -> BadFile:
        return BadFile(f"{self.path}: {name} {problem}")

    def wrong_type(self, name: str) -> BadFile:
        return BadFile(f"{self.path}: field {name!r} is missing or has the wrong type")


# ---- field types ------------------------------------------------------------------------------
class Field:
    """A declared field: ``check`` returns the (decoded) value or raises BadFile;
    ``max_bytes`` is the longest msgpack encoding a valid value can have; ``limits`` the
    longest string, binary, array and map inside it."""

    nullable = False

    def check(self, value, ctx: Context, name: str):
        raise NotImplementedError

    def max_bytes(self, ctx: Context) -> int:
        raise NotImplementedError

    def limits(self, ctx: Context) -> Limits:
        return Limits()

    def min_bytes(self, ctx: Context) -> int:
        """The shortest msgpack encoding a valid value can have."""
        return 1


@dataclass(frozen=True)
class Null(Field):
    """Always None (a field reserved for later versions)."""

    nullable = True

    def check(self, value, ctx, name):
        if value is not None:
            raise ctx.wrong_type(name)
        return None

    def max_bytes(self, ctx):
        return 1


@dataclass(frozen=True)
class Str(Field):
    max_len: Bound = 256  # UTF-8 bytes
    choices: tuple[str, ...] | None = None

    def check(self, value, ctx, name):
        if not isinstance(value, str):
            raise ctx.wrong_type(name)
        if len(value.encode()) > ctx.size(self.max_len):
            raise ctx.fail(f"field {name!r}", f"is longer than {ctx.size(self.max_len)} bytes")
        if self.choices is not None and value not in self.choices:
            raise ctx.fail(f"field {name!r}", f"is {value[:40]!r}, not one of {', '.join(self.choices)}")
        return value

    def max_bytes(self, ctx):
        return 5 + ctx.size(self.max_len)

    def limits(self, ctx):
        return Limits(str=ctx.size(self.max_len))


@dataclass(frozen=True)
class Int(Field):
    lo: Bound = 0
    hi: Bound = MAX_INT

    def check(self, value, ctx, name):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ctx.wrong_type(name)
        lo, hi = ctx.size(self.lo), ctx.size(self.hi)
        if not lo <= value <= hi:
            what = f" (the {self.hi} of {ctx.dims.get('game')})" if isinstance(self.hi, str) else ""
            raise ctx.fail(f"field {name!r}", f"is {value}, outside {lo}..{hi}{what}")
        return value

    def max_bytes(self, ctx):
        return 9


@dataclass(frozen=True)
class Float(Field):
    """A finite number (an int is accepted, a bool is not)."""

    lo: float | None = None

    def check(self, value, ctx, name):
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ctx.wrong_type(name)
        if isinstance(value, int) and abs(value) > MAX_INT:
            raise ctx.fail(f"field {name!r}", f"is {value}, too large")
        if not math.isfinite(value) or (self.lo is not None and value < self.lo):
            bound = f" or below {self.lo:g}" if self.lo is not None else ""
            raise ctx.fail(f"field {name!r}", f"is {value!r}: not finite{bound}")
        return value

    def max_bytes(self, ctx):
        return 9


@dataclass(frozen=True)
class Opt(Field):
    """``inner`` or None (or absent)."""

    inner: Field
    nullable = True

    def check(self, value, ctx, name):
        return None if value is None else self.inner.check(value, ctx, name)

    def min_bytes(self, ctx):
        return 0

    def max_bytes(self, ctx):
        return self.inner.max_bytes(ctx)

    def limits(self, ctx):
        return self.inner.limits(ctx)


@dataclass(frozen=True)
class Either(Field):
    """The first of ``options`` that accepts the value."""

    options: tuple[Field, ...]

    def check(self, value, ctx, name):
        for option in self.options:
            try:
                return option.check(value, ctx, name)
            except BadFile:
                continue
        raise ctx.wrong_type(name)

    def max_bytes(self, ctx):
        return max(option.max_bytes(ctx) for option in self.options)

    def limits(self, ctx):
        out = Limits()
        for option in self.options:
            out = out.merge(option.limits(ctx))
        return out


@dataclass(frozen=True)
class List(Field):
    """A list of ``item``: exactly ``length`` items when given, else at most ``max_len``;
    ``equals`` names a dimension the list must equal (labels of the declared game)."""

    item: Field
    length: Bound | None = None
    max_len: Bound = 0
    equals: str | None = None

    def _most(self, ctx) -> int:
        return ctx.size(self.length if self.length is not None else self.max_len)

    def check(self, value, ctx, name):
        if not isinstance(value, list):
            raise ctx.wrong_type(name)
        if self.length is not None and len(value) != ctx.size(self.length):
            if self.equals:
                raise self._mismatch(ctx, name)
            raise ctx.fail(f"field {name!r}", f"has {len(value)} items, expected {ctx.size(self.length)}")
        if len(value) > self._most(ctx):
            raise ctx.fail(f"field {name!r}", f"has {len(value)} items, at most {self._most(ctx)} expected")
        out = [self.item.check(v, ctx, name) for v in value]
        if self.equals is not None and out != ctx.dims[self.equals]:
            raise self._mismatch(ctx, name)
        return out

    @staticmethod
    def _mismatch(ctx, name) -> BadFile:
        return ctx.fail(f"its {name}", f"do not match game {ctx.dims.get('game')} (made by another version?)")

    def max_bytes(self, ctx):
        return 5 + self._most(ctx) * self.item.max_bytes(ctx)

    def limits(self, ctx):
        return Limits(array=self._most(ctx)).merge(self.item.limits(ctx))


@dataclass(frozen=True)
class Map(Field):
    """A map of string keys (at most ``key_len`` bytes) to ``value``, at most ``max_len`` entries."""

    value: Field
    max_len: Bound = 16
    key_len: int = 64

    def check(self, value, ctx, name):
        if not isinstance(value, dict) or len(value) > ctx.size(self.max_len):
            raise ctx.wrong_type(name)
        out = {}
        for key, item in value.items():
            if not isinstance(key, str) or len(key.encode()) > self.key_len:
                raise ctx.wrong_type(name)
            out[key] = self.value.check(item, ctx, f"{name}.{key}")
        return out

    def max_bytes(self, ctx):
        return 5 + ctx.size(self.max_len) * (5 + self.key_len + self.value.max_bytes(ctx))

    def limits(self, ctx):
        return Limits(str=self.key_len, map=ctx.size(self.max_len)).merge(self.value.limits(ctx))


@dataclass(frozen=True)
class Record(Field):
    """A map with exactly the declared keys (a nullable field may be absent)."""

    fields: Mapping[str, Field]

    def check(self, value, ctx, name):
        if not isinstance(value, dict):
            raise ctx.wrong_type(name)
        return check_fields(self.fields, value, ctx, prefix=f"{name}.")

    def max_bytes(self, ctx):
        return fields_max_bytes(self.fields, ctx)

    def min_bytes(self, ctx):
        return fields_min_bytes(self.fields, ctx)

    def limits(self, ctx):
        return fields_limits(self.fields, ctx)


ARRAY_DTYPES = ("<f8", "<f4", "<f2", "<i8", "<i4", "|u1", "|b1")
VALUE_CHECKS = (None, "finite", "nonnegative", "distribution")


@dataclass(frozen=True)
class Array(Field):
    """A numpy array stored as ``{"dtype", "shape", "data"}`` (raw little-endian bytes).
    ``dtype`` is one dtype string or a tuple of those accepted; ``shape`` is declared (numbers
    or dimension names); ``values`` checks the numbers: "finite", "nonnegative" (and finite),
    or "distribution": each row of the last axis is a probability distribution over the legal
    actions and zero elsewhere, ``legal`` naming the dimension that holds the (rows, actions)
    bool mask (None: every action of the last axis is legal)."""

    dtype: str | tuple[str, ...]
    shape: tuple[Bound, ...]
    values: str | None = None
    legal: str | None = "legal"

    def __post_init__(self):
        assert all(d in ARRAY_DTYPES for d in self.dtypes) and self.values in VALUE_CHECKS

    @property
    def dtypes(self) -> tuple[str, ...]:
        return (self.dtype,) if isinstance(self.dtype, str) else tuple(self.dtype)

    def _shape(self, ctx) -> tuple[int, ...]:
        return tuple(ctx.size(s) for s in self.shape)

    def _bytes(self, ctx) -> int:
        return math.prod(self._shape(ctx)) * max(np.dtype(d).itemsize for d in self.dtypes)

    def check(self, value, ctx, name):
        if not isinstance(value, dict) or set(value) != {"dtype", "shape", "data"}:
            raise ctx.fail(f"{name}", "is not an encoded array")
        dtype, shape, data = value["dtype"], value["shape"], value["data"]
        if not isinstance(dtype, str) or dtype not in ARRAY_DTYPES:
            raise ctx.fail(name, f"has unsupported dtype {str(dtype)[:40]!r}")
        if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**40
                                                  for s in shape):
            raise ctx.fail(name, "has an invalid shape")
        if not isinstance(data, bytes):
            raise ctx.fail(name, "has no byte data")
        if math.prod(shape) * np.dtype(dtype).itemsize != len(data):
            raise ctx.fail(f"{name}:", f"{len(data)} bytes for shape {shape} of {dtype} (truncated or corrupt)")
        expected = self._shape(ctx)
        if tuple(shape) != expected or dtype not in self.dtypes:
            raise ctx.fail(name, f"has shape {tuple(shape)} of {dtype}, expected {expected} of "
                                 f"{' or '.join(self.dtypes)} for {ctx.dims.get('game')}")
        array = np.frombuffer(data, dtype=dtype).reshape(shape).copy()
        if self.values is not None:
            legal = ctx.dims[self.legal] if self.values == "distribution" and self.legal is not None else None
            check_values(array, self.values, ctx, name, legal)
        return array

    def max_bytes(self, ctx):
        return 64 + 9 * len(self.shape) + self._bytes(ctx)

    def min_bytes(self, ctx):
        return math.prod(self._shape(ctx)) * min(np.dtype(d).itemsize for d in self.dtypes)

    def limits(self, ctx):
        return Limits(str=8, bin=self._bytes(ctx), array=len(self.shape), map=3)


def check_values(array: np.ndarray, kind: str, ctx: Context, name: str, legal=None) -> None:
    """BadFile unless ``array`` holds what ``kind`` (one of ``VALUE_CHECKS``) says."""
    if not np.isfinite(array).all():
        raise ctx.fail(name, "holds values that are not finite (NaN or infinity)")
    largest = float(np.abs(array).max(initial=0))
    if largest >= MAX_TABLE:
        raise ctx.fail(name, f"holds a value of magnitude {largest:.3g}, beyond the {MAX_TABLE:g} no run reaches")
    if kind == "finite":
        return
    if (array < 0).any():
        raise ctx.fail(name, "holds negative values")
    if kind == "nonnegative":
        return
    legal = np.ones(array.shape[-1], dtype=bool) if legal is None else np.asarray(legal, dtype=bool)
    labels = ctx.dims.get("labels") if legal.ndim == 2 else None

    def where(bad: np.ndarray) -> str:
        row = int(np.argwhere(bad)[0][-1])
        return f"infoset {labels[row]!r}" if labels is not None and row < len(labels) else f"row {row}"

    illegal = (array * ~legal != 0).any(axis=-1)
    if illegal.any():
        raise ctx.fail(name, f"at {where(illegal)} give probability to an action that is not legal there")
    # a row of A numbers rounded to the file's dtype (float16 tables) sums to one within A roundings
    eps = np.finfo(array.dtype).eps if array.dtype.kind == "f" else 0.0
    unnormalised = np.abs(array.sum(axis=-1, dtype=np.float64) - 1) > max(_TOLERANCE, 2 * eps * array.shape[-1])
    if unnormalised.any():
        raise ctx.fail(name, f"at {where(unnormalised)} do not sum to one")


def check_fields(fields: Mapping[str, Field], obj: dict, ctx: Context, prefix: str = "") -> dict:
    """Check a map against declared fields: every key known, every required key present."""
    for key in obj:
        if key not in fields:
            shown = key[:40] if isinstance(key, str) else type(key).__name__
            raise ctx.fail(f"field {prefix + shown!r}", "is not part of this file format (made by another version?)")
    out = {}
    for key, spec in fields.items():
        if key not in obj and not spec.nullable:
            raise ctx.wrong_type(prefix + key)
        out[key] = spec.check(obj.get(key), ctx, prefix + key)
    return out


def fields_max_bytes(fields: Mapping[str, Field], ctx: Context) -> int:
    return 5 + sum(5 + len(key) + spec.max_bytes(ctx) for key, spec in fields.items())


def fields_min_bytes(fields: Mapping[str, Field], ctx: Context) -> int:
    return sum(spec.min_bytes(ctx) for spec in fields.values() if not spec.nullable)


def fields_limits(fields: Mapping[str, Field], ctx: Context) -> Limits:
    out = Limits(str=max(map(len, fields), default=0), map=len(fields))
    for spec in fields.values():
        out = out.merge(spec.limits(ctx))
    return out


# ---- schemas and files ------------------------------------------------------------------------
@dataclass(frozen=True)
class Schema:
    """A file kind: its name and version, the header fields read before the game is known
    (their sizes must be numbers), and the body fields."""

    kind: str
    version: int
    header: Mapping[str, Field]
    body: Mapping[str, Field] = field(default_factory=dict)
    unchecked: tuple[int, ...] = ()  # earlier versions still read: the same fields without checksums

    def fields_of(self, version: int) -> dict[str, Field]:
        """Every field a file of ``version`` holds (the checksums from this version on)."""
        sums = {} if version in self.unchecked else {HEADER_CRC: CHECKSUM, CRC: CHECKSUM}
        return {"format": Str(64), "version": Int(0, 2**31), **self.header, **self.body, **sums}

    @property
    def fields(self) -> dict[str, Field]:
        return self.fields_of(self.version)

    def encode(self, values: Mapping[str, Any]) -> bytes:
        """The msgpack bytes of a file holding ``values`` (arrays as numpy arrays), sealed: the
        header fields come first, so a reader can decode them alone, then the header's checksum,
        the body and the checksum of all of it (``seal``)."""
        declared = {**self.header, **self.body}
        unknown = set(values) - set(declared)
        assert not unknown, f"fields {unknown} are not declared in the {self.kind} schema"
        entries: list[tuple[str, Any]] = [("format", self.kind), ("version", self.version)]
        n_header = 0
        for key, spec in declared.items():
            if key not in values and spec.nullable:
                continue  # an optional field not given is left out
            entries.append((key, _encoded(values.get(key))))
            n_header += key in self.header
        return seal(entries, 2 + n_header)

    def open(self, path) -> SchemaFile:
        return SchemaFile(self, path)


CHECKSUM = Int(0, 2**32 - 1)


def seal(entries: list[tuple[str, Any]], n_header: int) -> bytes:
    """The msgpack map of ``entries`` with two more: after the first ``n_header``, ``header_crc``
    (the CRC-32 of every byte before that key), and last ``crc`` (of every byte before it), each
    a uint32 of five bytes. A flipped bit anywhere then fails one of them: readers check the
    header's before using any header field and the whole file's before decoding the body."""
    packer = msgpack.Packer(use_bin_type=True)
    out = bytearray(packer.pack_map_header(len(entries) + 2))
    for i, (key, value) in enumerate(entries):
        if i == n_header:
            out += _crc_entry(packer, HEADER_CRC, out)
        out += packer.pack(key) + packer.pack(value)
    if n_header >= len(entries):
        out += _crc_entry(packer, HEADER_CRC, out)
    out += _crc_entry(packer, CRC, out)
    return bytes(out)


def seal_map(obj: Mapping[str, Any], n_header: int | None = None) -> bytes:
    """A decoded file map (keys in file order, arrays as encoded maps) sealed again, its old
    checksums dropped: its first ``n_header`` keys are the header (default: those before its
    ``header_crc``, or all). For tools that rewrite a file, and for tests that craft one."""
    keys = list(obj)
    if n_header is None:
        n_header = keys.index(HEADER_CRC) if HEADER_CRC in keys else len(keys)
    return seal([(k, v) for k, v in obj.items() if k not in (HEADER_CRC, CRC)], n_header)


def _crc_entry(packer, key: str, data) -> bytes:
    return packer.pack(key) + struct.pack(">BI", 0xCE, zlib.crc32(data))


def sealed(data: bytes) -> bool:
    """Whether ``data`` (a map written by ``seal``, nothing after it) ends with the checksum of
    everything before its ``crc``."""
    return (len(data) > 9 and data[-9:-4] == _CRC_TAIL
            and struct.unpack(">I", data[-4:])[0] == zlib.crc32(memoryview(data)[:-9]))


def _encoded(value):
    if isinstance(value, np.ndarray):
        return pack_array(value)
    if isinstance(value, dict):
        return {k: _encoded(v) for k, v in value.items()}
    return value


def pack_array(array: np.ndarray) -> dict:
    array = np.ascontiguousarray(array)
    dtype = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    return {"dtype": dtype.str, "shape": list(array.shape), "data": array.astype(dtype, copy=False).tobytes()}


def _no_extensions(code, data):
    raise ValueError("msgpack extension types are not used by distcfr files")


def _corrupt(path, err: Exception, what: str) -> BadFile:
    text = str(err)
    if "max_ext_len" in text or "extension" in text:
        return BadFile(f"{path} holds a msgpack extension type, which no distcfr file uses (corrupt or crafted)")
    if "exceeds max_" in text:
        return BadFile(f"{path} holds a string, binary, array or map longer than {what} can (corrupt or crafted)")
    return BadFile(f"{path} is not a distcfr file (corrupt or truncated msgpack: {type(err).__name__})")


class SchemaFile:
    """An open file of one schema: ``header`` is decoded on opening, ``read(dims)`` decodes
    and checks the rest. Use as a context manager (or call ``close``)."""

    def __init__(self, schema: Schema, path):
        self.schema, self.path = schema, path
        self.handle, self.size = open_for_read(path)
        try:
            self.head = read_exactly(self.handle, min(self.size, HEAD_BYTES), path)
            self.header = self._read_header()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> SchemaFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.handle.close()

    def _read_header(self) -> dict:
        schema, path = self.schema, self.path
        wanted = {"format": Str(64), "version": Int(0, 2**31), **schema.header, HEADER_CRC: CHECKSUM}
        ctx = Context(path, {})
        small = Limits()
        for spec in wanted.values():
            small = small.merge(spec.limits(ctx))
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, ext_hook=_no_extensions,
                                    max_buffer_size=max(len(self.head), 1), max_str_len=max(small.str, 64),
                                    max_bin_len=small.bin, max_array_len=small.array, max_map_len=max(small.map, 64),
                                    max_ext_len=0)
        unpacker.feed(self.head)
        found: dict[str, Any] = {}
        header_end = 0
        try:
            n = unpacker.read_map_header()
            for _ in range(min(n, len(wanted))):
                at = unpacker.tell()
                key = unpacker.unpack()
                if key not in wanted or key in found:
                    break
                found[key] = unpacker.unpack()
                if key == HEADER_CRC:
                    header_end = at
                    break
                if key == "format" and found[key] != schema.kind:
                    break
        except msgpack.OutOfData:
            if len(self.head) < self.size and found.get("format") == schema.kind:
                raise BadFile(f"{path}: its header ({', '.join(schema.header)}) is longer than "
                              f"{HEAD_BYTES} bytes (corrupt or crafted)") from None
            if "format" not in found or found["format"] == schema.kind:
                raise BadFile(f"{path} is not a distcfr file (corrupt or truncated msgpack: OutOfData)") from None
        except Exception as err:  # msgpack raises several types for corrupt input
            if "format" not in found or found["format"] == schema.kind:
                raise _corrupt(path, err, f"the header of a {schema.kind} file") from None
        kind = found.get("format")
        if kind != schema.kind:
            known = isinstance(kind, str) and len(kind) <= 64
            raise BadFile(f"{path} is not a {schema.kind} file" + (f" (it is {kind!r})" if known and kind else ""))
        version = found.get("version")
        if version != schema.version and (version not in schema.unchecked or isinstance(version, bool)):
            shown = repr(version) if isinstance(version, int | str | None) and len(repr(version)) < 40 else "?"
            raise BadFile(f"{path} has {schema.kind} format version {shown}; this distcfr reads version "
                          f"{schema.version}" + (f" (and {', '.join(map(str, schema.unchecked))} unchecked)"
                                                 if schema.unchecked else ""))
        self.version = version
        self.checked = version not in schema.unchecked  # false: an earlier version's file, without checksums
        missing = sorted(k for k, spec in schema.header.items() if k not in found and not spec.nullable)
        if missing:
            raise BadFile(f"{path}: field {missing[0]!r} is missing or not at the start of the file")
        if self.checked and (found.get(HEADER_CRC) != zlib.crc32(self.head[:header_end]) or not header_end):
            raise BadFile(f"{path}: its header fails its checksum (the file is corrupt)")
        return {key: spec.check(found.get(key), ctx, key) for key, spec in schema.header.items()}

    def read(self, dims: Mapping[str, Any], schema: Schema | None = None) -> dict:
        """Every field, checked against the schema with the declared game's ``dims``. ``schema``
        replaces the one the file was opened with when the header decides the body (it must
        have the same kind, version and header)."""
        if schema is None:
            schema = self.schema
        assert (schema.kind, schema.version, dict(schema.header)) == \
            (self.schema.kind, self.schema.version, dict(self.schema.header))
        path = self.path
        ctx = Context(path, dims)
        fields = schema.fields_of(self.version)
        most = fields_max_bytes(fields, ctx)
        game = dims.get("game")
        if self.size > most:
            raise BadFile(f"{path} is {self.size:,} bytes, more than a {schema.kind} file of {game} can be "
                          f"({most:,}): its contents do not match game {game}")
        least = fields_min_bytes(fields, ctx)
        if self.size < least:
            raise BadFile(f"{path} has {self.size:,} bytes; a {schema.kind} file of {game} needs at least "
                          f"{least:,}: its contents do not match game {game} (truncated, or crafted)")
        # the file's own size, never the game's largest: a short file naming a huge game allocates nothing
        data = self.head + read_exactly(self.handle, self.size + 1 - len(self.head), path)
        if len(data) != self.size:
            raise BadFile(f"{path} changed size while it was read")
        if self.checked and not sealed(data):
            raise BadFile(f"{path} fails its checksum (the file is corrupt)")
        limits = fields_limits(fields, ctx)
        try:
            obj = msgpack.unpackb(data, raw=False, strict_map_key=True, ext_hook=_no_extensions,
                                  max_str_len=limits.str, max_bin_len=limits.bin, max_array_len=limits.array,
                                  max_map_len=limits.map, max_ext_len=0)
        except Exception as err:  # msgpack raises several types for corrupt input
            raise _corrupt(path, err, f"a {schema.kind} file of {game}") from None
        if not isinstance(obj, dict):
            raise BadFile(f"{path} is not a {schema.kind} file")
        values = check_fields(fields, obj, ctx)
        for key in ("format", "version", HEADER_CRC, CRC):
            values.pop(key, None)
        return values


def file_format(path) -> str | None:
    """The ``format`` a distcfr file declares first (None for anything else), read from its first
    bytes only; OS errors and paths that are not regular files are BadParameter as for a read."""
    handle, size = open_for_read(path)
    with handle:
        head = read_exactly(handle, min(size, HEAD_BYTES), path)
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, ext_hook=_no_extensions, max_buffer_size=HEAD_BYTES,
                                max_str_len=64, max_bin_len=0, max_array_len=0, max_map_len=64, max_ext_len=0)
    unpacker.feed(head)
    try:
        unpacker.read_map_header()
        if unpacker.unpack() != "format":
            return None
        kind = unpacker.unpack()
    except Exception:  # msgpack raises several types for corrupt input
        return None
    return kind if isinstance(kind, str) else None


def read_file(schema: Schema, path, dims_of_header) -> dict:
    """Open ``path``, decode its header, and read it all with ``dims_of_header(header)``."""
    with schema.open(path) as file:
        return file.read(dims_of_header(file.header))


def game_dims(layout) -> dict:
    """The dimensions of a game's tables, for the schemas of strategy and checkpoint files:
    ``layout`` is a distcfr.engine.layout.Layout (any object with its attributes)."""
    labels = list(layout.labels)
    actions = [list(a) for a in layout.action_labels]
    variants = list(layout.game.variant_labels)
    longest = max([len(s.encode()) for s in labels] + [len(a.encode()) for row in actions for a in row]
                  + [len(v.encode()) for v in variants] + [1])
    return {"game": layout.game.spec, "variants": layout.n_variants, "infosets": layout.n_infosets,
            "actions": layout.max_actions, "deals": layout.n_deals, "labels": labels, "action_labels": actions,
            "variant_labels": variants, "label_bytes": longest, "legal": layout.action_mask}

"""Kept for code written against the older module: files are now read through
distcfr.io.schema (declared fields, limits from the declared game) and written through
distcfr.io.paths (atomic writes, one-line OS errors)."""

from distcfr.io.paths import check_writable, write_atomic
from distcfr.io.schema import file_format, pack_array

__all__ = ["check_writable", "file_format", "pack_array", "write_atomic"]

"""What the command-line tools share: an argparse parser whose errors are one line (exit 2
through the caller's DistcfrError handler), argument types with clear messages, a standard output
that a closed pipe (``| head``) does not break, and text from files made safe for a terminal."""

from __future__ import annotations

import argparse
import io
import math
import os
import re
import sys

from distcfr.errors import BadParameter
from distcfr.version import __version__


class OneLineParser(argparse.ArgumentParser):
    """Every tool's parser: ``--version`` built in, errors raised as one line."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version", version=f"distcfr {__version__}",
                          help="print distcfr's version and exit")
        tolerate_closed_stdout()  # every tool builds its parser first

    def error(self, message):  # one line, exit 2, no usage dump
        raise BadParameter(message)


def check_distinct(inputs: dict[str, str | None], outputs: dict[str, str | None]) -> None:
    """No output may be an input or another output (a strategy written over the checkpoint it was
    read from loses the run). ``inputs`` and ``outputs`` map an option to its path (None: not
    given); an option in both (a checkpoint written back where it was read) may name one file for
    itself. Compared as resolved paths: a symlink or ./name is the file itself."""
    seen: dict[str, str] = {}
    for option, path in inputs.items():
        if path:
            seen.setdefault(os.path.realpath(path), option)
    for option, path in outputs.items():
        if not path:
            continue
        where = os.path.realpath(path)
        if where in seen and seen[where] != option:
            raise BadParameter(f"{option} {path} is the same file as {seen[where]}: give each its own file")
        seen[where] = option


def whole_number(minimum: int, meaning: str, maximum: int | None = None, why: str = ""):
    """An argparse type: an integer >= ``minimum`` (``meaning`` says what the minimum means) and, with
    ``maximum``, at most that (``why`` says why, after it)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {meaning}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"at most {maximum:,}{why}, got {value:,}")
        return value

    return parse


def positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


class _ClosedPipeSafe(io.TextIOBase):
    """Standard output that, once its reader has gone (``| head -1``), drops what is printed: the
    run goes on and writes its files, and no BrokenPipeError reaches the user."""

    def __init__(self, stream):
        self.stream, self.gone = stream, False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self.gone = True
        try:  # the interpreter's last flush at exit must not find the broken pipe either
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.stream.fileno())
            os.close(null)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass

    @property
    def closed(self) -> bool:  # asked at exit too (Ray's colorama), when a test harness may have closed the stream
        return self.stream.closed

    def isatty(self) -> bool:
        return not self.stream.closed and self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self):
        return self.stream.encoding


def tolerate_closed_stdout() -> None:
    if not isinstance(sys.stdout, _ClosedPipeSafe):
        sys.stdout = _ClosedPipeSafe(sys.stdout)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` (which may come from a file) with control characters written as escapes, so that no
    escape sequence from a crafted file reaches the terminal; new lines and tabs stay."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)

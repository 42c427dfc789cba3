"""What the command-line tools share: an argparse parser whose errors are one line (exit 2
through the caller's DistcfrError handler) and argument types with clear messages."""

from __future__ import annotations

import argparse
import math

from distcfr.errors import BadParameter
from distcfr.version import __version__

RELEASE_SECONDS = 3.0  # after Ctrl-C/SIGTERM, how long Ray may take to stop before the process just ends


class OneLineParser(argparse.ArgumentParser):
    """Every tool's parser: ``--version`` built in, errors raised as one line."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version", version=f"distcfr {__version__}",
                          help="print distcfr's version and exit")

    def error(self, message):  # one line, exit 2, no usage dump
        raise BadParameter(message)


def whole_number(minimum: int, meaning: str):
    """An argparse type: an integer >= ``minimum``; ``meaning`` says what the minimum means."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {meaning}, got {value}")
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

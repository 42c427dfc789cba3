"""What the command-line tools share: an argparse parser whose errors are one line (exit 2
through the caller's DistcfrError handler) and argument types with clear messages."""

from __future__ import annotations

import argparse
import math

from distcfr.errors import BadParameter

RELEASE_SECONDS = 3.0  # after Ctrl-C/SIGTERM, how long Ray may take to stop before the process just ends


class OneLineParser(argparse.ArgumentParser):
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

"""No command's --help quotes a measured figure (a time, a size, a factor, a value in BB, a date):
help says what an option does; figures live in the benches that measure them."""

from __future__ import annotations

import argparse
import re

import pytest

from distcfr import compare, match, seeds, show, train
from distcfr.solve.sampled_run import EVAL_SHARE

# a number followed by a unit of time, size, money or a factor, or a date
FIGURE = re.compile(r"\d[\d,.]*\s?(?:s|ms|sec|seconds?|min|minutes?|h|hours?|GB|MB|KB|BB|mBB|%|x|CPU-s)(?![\w-])"
                    r"|\b20\d\d-\d\d-\d\d\b")
# settings, not measurements: the interval's confidence level, the share of a run's time its brackets may take
SETTINGS = {"95%", f"{100 * EVAL_SHARE:g}%"}
PARSERS = {"train": train.build_parser, "show": show.build_parser, "match": match.build_parser,
           "compare": compare.build_parser, "seeds": seeds.build_parser}


def figures(text: str) -> list[str]:
    return [m.group(0) for m in FIGURE.finditer(text) if m.group(0) not in SETTINGS]


def option_helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """{option: its help as --help prints it (% expanded)}."""
    formatter = parser._get_formatter()
    return {"/".join(a.option_strings) or a.dest: formatter._expand_help(a) for a in parser._actions if a.help}


def test_the_pattern_finds_figures():
    text = "0.22 BB at 1 round, 2.7x the time, about 15 s there, 12%, measured on 2026-11-25, 3.68 mBB"
    assert figures(text) == ["0.22 BB", "2.7x", "15 s", "12%", "2026-11-25", "3.68 mBB"]
    assert figures("5 cards from 52, 1,075,672 deals, draw27(ranks=8,suits=2,hand=3), 95%") == []


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_no_option_help_quotes_a_figure(name):
    helps = option_helps(PARSERS[name]())
    assert helps  # every command has options
    quoted = {option: figures(text) for option, text in helps.items() if figures(text)}
    assert quoted == {}, f"{name}: help quotes figures: {quoted}"


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_no_help_page_carries_a_date(name):
    page = PARSERS[name]().format_help()
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", page)

"""distcfr.evaluate.units: exploitability in big blinds and mBB per hand, or in chips per game."""

import re

import pytest

from distcfr.evaluate.units import amount, exploitability_text, figure, per
from distcfr.games.registry import load_game

AMOUNT = re.compile(r"^(\S+) BB \((\S+) mBB\)$")


@pytest.mark.parametrize("x, text", [(0.0123, "0.0123"), (12.34, "12.3"), (0.031, "0.0310"), (1.5, "1.50"),
                                     (4.123e-8, "4.12e-08"), (9.99e-4, "9.99e-04"), (0.0, "0"), (1234.5, "1234")])
def test_a_figure_has_three_significant_digits(x, text):
    assert figure(x) == text


@pytest.mark.parametrize("x", [0.0123, 0.20, 4.5e-6, 3.0e-9, 1.75])
def test_big_blinds_come_with_their_milli_big_blinds(x):
    bb, mbb = AMOUNT.match(amount(x, "BB")).groups()
    assert float(bb) == pytest.approx(x, rel=5e-3) and float(mbb) == pytest.approx(1000 * x, rel=5e-3)


def test_each_game_names_its_own_unit():
    for spec, unit, said in (("draw27(ranks=6,suits=2,hand=2)", "BB", "BB (2.00 mBB) per hand"),
                             ("kuhn", "chips", "0.00200 chips per game"), ("leduc", "chips", "chips per game")):
        assert load_game(spec).unit == unit
        text = exploitability_text(0.002, unit)
        assert text.endswith(said)
        assert ("BB" in text) == (unit == "BB")  # chips are never called big blinds
    assert per("BB") == "per hand" and per("chips") == "per game"


def test_an_interval_shares_the_figures_decimals():
    assert exploitability_text(0.0123, "BB", (0.0041, 0.031)) == \
        "0.0123 BB (12.3 mBB) per hand, in [0.0041, 0.0310] BB"
    assert exploitability_text(0.00384, "BB", (0.0, 0.0194)) == \
        "0.00384 BB (3.84 mBB) per hand, in [0.00000, 0.01940] BB"


def test_an_estimate_below_zero_shows_as_zero():
    assert exploitability_text(-0.0012, "BB", (0.0, 0.0107)) == "0.0000 BB (0.0 mBB) per hand, in [0.0000, 0.0107] BB"
    assert exploitability_text(-1e-17, "chips") == "0 chips per game"

"""Strategy tables a player can read: every exact game's tables fit the terminal's width, show the
strategy's own probabilities, and a list of stacks prints a bounded summary."""

import re

import pytest

import distcfr
from distcfr.evaluate.tables import render_tables
from distcfr.games.table import Table, mix_cell, short_prob
from distcfr.show import main as show
from distcfr.train import main as train

SOLVED = {}
EXACT = ["kuhn", "leduc", "minipoker", "community13", "community13(board=hidden)", "draw27",
         "draw27(ranks=7,suits=2,hand=2,stacks=3)"]


def solved(spec):
    if spec not in SOLVED:
        SOLVED[spec] = distcfr.Solver(distcfr.load_game(spec)).solve(iterations=200)
    return SOLVED[spec]


@pytest.mark.parametrize("spec", EXACT)
@pytest.mark.parametrize("width", [80, 60])
def test_every_exact_game_fits_the_width(spec, width):
    text = render_tables(solved(spec), width=width)
    assert text.strip(), f"{spec} prints no table"
    too_long = [line for line in text.splitlines() if len(line) > width]
    assert not too_long, f"{spec}: {len(too_long)} lines over {width} columns, e.g. {too_long[0]!r}"


def test_a_wide_table_splits_its_columns_into_blocks():
    table = Table("thirty columns", [f"column {i}" for i in range(30)], [("row one", [i / 30 for i in range(30)])])
    text = table.render(40)
    assert max(len(line) for line in text.splitlines()) <= 40
    assert text.count("row one") > 1  # the row label repeats in each block
    assert all(f"{i / 30:.2f}" in text for i in range(30))


def _row(text: str, label: str, pattern: str) -> str:
    """The first line of ``text`` starting with the row ``label`` after a line matching ``pattern``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(pattern, line))
    return next(line for line in lines[start:] if line.split() and line.split()[0] == label)


def test_kuhn_table_shows_the_strategy():
    strategy = solved("kuhn")
    text = render_tables(strategy, width=80)
    row = _row(text, "Q", "^player 2").split()
    p = strategy["Q|b"]
    assert row[3:5] == [f"{p['fold']:.2f}", f"{p['call']:.2f}"]  # fold to bet, call bet
    row = _row(text, "J", "^player 1").split()
    assert row[1:3] == [f"{strategy['J|']['check']:.2f}", f"{strategy['J|']['bet']:.2f}"]


def _mix(cell: str) -> dict[str, float]:
    """``c.38 r.62`` -> {"c": .38, "r": .62}; ``c1`` -> {"c": 1}."""
    return {part[0]: float(part[1:]) for part in cell.split()}


@pytest.mark.parametrize("label", ["K|", "J|r", "Q|cr", "K/Q|rc.r", "Q/K|cc.cr", "J/J|crrc."])
def test_leduc_cells_are_the_strategys_probabilities(label):
    strategy = solved("leduc")
    text = render_tables(strategy, width=80)
    codes = {"fold": "f", "check": "c", "call": "c", "bet": "r", "raise": "r"}
    probs = strategy.action_probs(label)
    cell = mix_cell(probs, codes)
    shown = _mix(cell)
    for action, p in probs.items():
        assert shown.get(codes[action], 0.0) == pytest.approx(p, abs=0.005 + 1e-9)
    private, history = label.split("|")
    if "." in history:  # round 2: the table of its round-1 betting, the row of its card/board
        before, after = history.split(".")
        row = _row(text, private, f"^round 2 after {before}:")
    else:
        after, row = history, _row(text, private, "^round 1")
    heading = f"P{(len(after) % 2) + 1}: {after or 'start'}"
    assert heading in text
    assert cell in row


def test_short_probabilities():
    assert [short_prob(p) for p in (0, 0.004, 0.38, 0.994, 0.996, 1)] == ["0", "0", ".38", ".99", "1", "1"]
    assert mix_cell({"fold": 0.001, "call": 0.38, "raise": 0.619}, {"fold": "f", "call": "c", "raise": "r"}) == \
        "c.38 r.62"


def test_no_tables_is_honoured(tmp_path, capsys):
    argv = ["--game", "kuhn", "--iterations", "50", "--workers", "0", "--quiet", "--out", str(tmp_path / "k.msgpack")]
    assert train(argv) == 0
    assert "call after check-bet" in capsys.readouterr().out
    assert train([*argv, "--no-tables"]) == 0
    out = capsys.readouterr().out
    assert "call after check-bet" not in out and "==" not in out


def test_a_stack_list_prints_a_bounded_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out_file = tmp_path / "sweep.msgpack"
    game = "draw27(ranks=7,suits=2,hand=2,stacks=1.5:10:0.5)"  # 18 stacks: full tables would be ~600 lines
    assert train(["--game", game, "--iterations", "5", "--workers", "0", "--quiet", "--out", str(out_file)]) == 0
    printed = capsys.readouterr().out
    tables = printed[printed.index("\n== "):]
    assert "push / call" in tables and "BTN draws" not in tables
    assert len(tables.splitlines()) < 100
    assert max(len(line) for line in tables.splitlines()) <= 80
    assert show([str(out_file)]) == 0
    shown = capsys.readouterr().out
    assert len(shown.splitlines()) < 130
    strategy = distcfr.load_strategy(out_file)
    for v in (0, 17):  # the pair of deuces (one hand: 2d2c) at the first and the last stack
        push = strategy.action_probs("2d2c|", v)["push"]
        call = strategy.action_probs("2d2c|a", v)["call"]
        summary = render_tables(strategy, width=200)
        assert f"{100 * push:.0f}/{100 * call:.0f}" == _row(summary, "22", "push / call").split()[1 + v]
    full = render_tables(strategy, width=80, variants=[3])  # asked for: one stack's full table
    assert "stack 3BB" in full and "BTN draws" in full

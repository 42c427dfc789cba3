"""python -m distcfr.show FILE and --html: a saved strategy's exploitability in its game's units,
the figures the strategy itself evaluates to (BB and mBB per hand for draw27, chips per game for
the chip games)."""

import re

import pytest
from printed import shown

import distcfr
from distcfr.present.html_report import html_report
from distcfr.show import main as show

ROW = re.compile(r"^  (?:(\S+)  )?value [+-]\S+ (\S+)  exploitability (\S+) (?:BB \((\S+) mBB\) per hand|chips "
                 r"per game)")


def saved(tmp_path, spec: str, iterations: int):
    """A strategy of ``spec`` after ``iterations``, saved; returns (path, strategy)."""
    strategy = distcfr.Solver(distcfr.load_game(spec)).solve(iterations=iterations)
    path = tmp_path / "s.msgpack"
    strategy.save(path)
    return path, strategy


@pytest.mark.parametrize("spec, unit, labels", [("kuhn", "chips", [None]),
                                                ("draw27(stacks=3:5:1)", "BB", ["3BB", "4BB", "5BB"])])
def test_show_says_each_stacks_exploitability_in_the_games_units(tmp_path, capsys, monkeypatch, spec, unit, labels):
    monkeypatch.setenv("COLUMNS", "1000")
    path, strategy = saved(tmp_path, spec, 30)
    assert show([str(path)]) == 0
    rows = [ROW.match(line) for line in capsys.readouterr().out.splitlines()]
    rows = [row for row in rows if row]
    assert [row.group(1) for row in rows] == labels
    for row, expl in zip(rows, strategy.exploitability_per_variant()):
        assert row.group(2) == unit and shown(row.group(3), expl)
        assert shown(row.group(4), 1000 * expl) if unit == "BB" else row.group(4) is None


def test_the_html_evaluation_names_the_unit(tmp_path):
    path, strategy = saved(tmp_path, "kuhn", 30)
    page = html_report(path)
    assert "exploitability per game" in page and "mBB" not in page
    assert shown(re.search(r"<td>([^<>\s]+) chips</td>", page).group(1), strategy.exploitability())
    path, strategy = saved(tmp_path, "draw27(stacks=3:5:1)", 30)
    page = html_report(path)
    cells = re.findall(r"<td>([^<>\s]+) BB \(([^<>\s]+) mBB\)</td>", page)
    assert "exploitability per hand" in page and len(cells) == 3
    for (bb, mbb), expl in zip(cells, strategy.exploitability_per_variant()):
        assert shown(bb, expl) and shown(mbb, 1000 * expl)

"""nl27's strategy tables, charts and matches: the numbers are the strategy's, weighted by own
reach; everything fits the width; the page escapes; matches are exact and refuse --games."""

import json
import re
from xml.etree import ElementTree

import numpy as np
import pytest

import distcfr
from distcfr.evaluate.strategy import Strategy
from distcfr.games.nl27_tables import SpotReader, opening_summary, strategy_tables
from distcfr.games.table import Table

TINY = "nl27(ranks=5,suits=1,hand=1,stacks=5)"
HANDS = ["2", "3", "4", "5", "6"]  # best first


@pytest.fixture(scope="module")
def solved():
    game = distcfr.load_game(TINY)
    return distcfr.Solver(game).solve(iterations=200)


@pytest.fixture(scope="module")
def solved_file(solved, tmp_path_factory):
    path = tmp_path_factory.mktemp("nl27") / "tiny.msgpack"
    solved.save(path)
    return path


def by_title(tables: list[Table], start: str) -> Table:
    (table,) = [t for t in tables if t.title.startswith(start)]
    return table


def cell(table: Table, row: str, column: str):
    return dict(table.rows)[row][table.columns.index(column)]


def test_the_opening_table_is_the_strategys_probabilities_best_hand_first(solved):
    table = by_title(strategy_tables(solved.game, solved, 0), "button's opening")
    assert [label for label, _ in table.rows] == HANDS
    assert table.columns == ["fold", "limp", "open 2.5", "all-in"]
    for hand, cells in table.rows:
        probs = solved.action_probs(f"{hand}|", 0)
        assert cells == [f"{100 * p:.0f}" for p in probs.values()]
    freq = SpotReader(solved.game, solved, 0).decision(()).freq
    assert np.allclose(freq.sum(axis=1), 1.0)


def test_the_big_blinds_responses_are_its_probabilities(solved):
    table = by_title(strategy_tables(solved.game, solved, 0), "big blind's response")
    for hand in HANDS:
        assert cell(table, hand, "open 2.5: call") == f"{100 * solved.action_probs(f'{hand}|r2.5')['call']:.0f}"
        assert cell(table, hand, "limp: check") == f"{100 * solved.action_probs(f'{hand}|c')['check']:.0f}"
        assert cell(table, hand, "all-in: fold") == f"{100 * solved.action_probs(f'{hand}|a')['fold']:.0f}"


@pytest.mark.parametrize("width", [80, 60])
def test_every_table_fits_the_width(solved, width):
    game = solved.game
    tables = strategy_tables(game, solved, 0) + opening_summary(game, solved)
    assert len(tables) >= 6  # opening, responses, button facing a raise, draws, two lines after the draw
    for table in tables:
        lines = table.render(width).splitlines()
        assert max(len(line) for line in lines) <= width


def handmade(game) -> Strategy:
    """The button always limps and stands pat; the big blind checks behind every hand but the 5
    (raises it), stands pat with every hand but the 6 (draws it) and after the draw bets a pat 3,
    checks the 3 it drew, and checks a 2 where the button drew (which it never does)."""
    table = {f"{h}|": {"limp": 1.0} for h in HANDS}
    table |= {f"{h}|c-k-n{count}": {"stand pat": 1.0} for h in HANDS for count in "01"}
    table["2|c-k-d0-n1"] = {"check": 1.0}
    table |= {f"{h}|c": {"check": 1.0} for h in HANDS if h != "5"}
    table["5|c"] = {"raise to 3": 1.0}
    table |= {f"{h}|c-k": {"stand pat": 1.0} for h in HANDS if h != "6"}
    table["6|c-k"] = {"discard 1": 1.0}
    for count in ("n0", "n1"):
        table[f"3|c-k-d0-{count}"] = {"bet 1": 1.0}
        table[f"6+3|c-k-d1-{count}"] = {"check": 1.0}
    return Strategy.from_dict(game, table)


def test_reach_weights_the_states_of_a_final_hand_and_blanks_the_unreached():
    game = distcfr.load_game(TINY)
    tables = strategy_tables(game, handmade(game), 0)
    after = by_title(tables, "after the draw, limp-check")
    assert [label for label, _ in after.rows] == HANDS
    # final 3: a pat 3 (chance 1) bets, the 6 that drew a 3 (chance 1/4 of its draws) checks
    assert cell(after, "3", "BB bet") == f"{100 / 1.25:.0f}"
    # uniform over check, bet 1, bet 2, all-in where the button stood pat; where it drew does not count
    assert cell(after, "2", "BB bet") == "75"
    # the big blind always throws its 6 and draws with no other hand: it never ends with a 6
    assert cell(after, "6", "BB bet") is None and cell(after, "6", "BB call") is None
    assert cell(after, "6", "BTN bet") == "75"  # the button (uniform) does
    assert cell(after, "5", "BB bet") == "75"  # never checked behind, but the 6 draws to a 5
    draws = by_title(tables, "draws on the main lines")
    assert cell(draws, "6", "limp-check: BB") == "-6" and cell(draws, "2", "limp-check: BB") == "pat"
    assert cell(draws, "5", "limp-check: BB") is None
    # the button never opens: its answers to the big blind's shove over an open are left out, to its raise not
    facing = by_title(tables, "button facing the big blind's raise")
    assert "open 2.5, all-in: fold" not in facing.columns
    assert all(cell(facing, h, "limp, raise 3: fold") == "33" for h in HANDS)  # fold, call, all-in at 5 BB


def test_several_stacks_summarise_the_opening_per_stack():
    game = distcfr.load_game("nl27(ranks=5,suits=1,hand=1,stacks=3:5:2)")
    strategy = Strategy.from_dict(game, {"4|": {"open 2.5": 1.0}})
    (table,) = opening_summary(game, strategy)
    assert table.columns == ["3BB", "5BB"]
    assert dict(table.rows)["4"] == ["0/0/100/0", "0/0/100/0"]
    assert dict(table.rows)["2"] == ["25/25/25/25", "25/25/25/25"]


def test_a_two_suit_two_card_deck_reads_per_hand_class():
    game = distcfr.load_game("nl27(ranks=5,suits=2,hand=2,stacks=5)")
    uniform = Strategy.from_dict(game, {})
    tables = strategy_tables(game, uniform, 0)
    opening = by_title(tables, "button's opening")
    labels = [label for label, _ in opening.rows]
    assert labels[0] == "32" and "22" in labels and len(labels) == 15  # 10 unpaired classes, 5 pairs
    assert dict(opening.rows)["22"] == ["25"] * 4
    draws = by_title(tables, "draws on the main lines")
    assert cell(draws, "32", "limp-check: BB").startswith(("pat", "-"))
    for table in tables:
        assert max(len(line) for line in table.render(80).splitlines()) <= 80


def test_show_prints_the_tables_in_80_columns(solved_file, capsys, monkeypatch):
    from distcfr.show import main

    monkeypatch.setenv("COLUMNS", "80")
    assert main([str(solved_file)]) == 0
    out = capsys.readouterr().out
    assert "button's opening" in out and "after the draw, open 2.5-call" in out
    tables = out[out.index("\n=="):]  # the heading names the file, whose path may be longer
    assert max(len(line) for line in tables.splitlines()) <= 80


def test_the_html_page_has_the_charts_and_escapes(solved, solved_file, tmp_path):
    from distcfr.present.html_report import exact_page
    from distcfr.present.nl27_charts import stacked_bars
    from distcfr.show import main

    page = exact_page(solved, "<b>tiny & co</b>")
    charts = re.findall(r"<svg class='stack'.*?</svg>", page, re.S)
    assert len(charts) == 6  # opening, BB vs the open, 2 lines x 2 spots after the draw
    for chart in charts:
        ElementTree.fromstring(chart)  # well formed
    assert "button&#x27;s opening per hand" in page and "big blind facing the open 2.5" in page
    assert "<b>tiny" not in page and "&lt;b&gt;tiny &amp; co" in page
    reader = SpotReader(solved.game, solved, 0)
    svg = stacked_bars("t<i>", ["<hand>"], _one_row(reader))
    assert "<hand>" not in svg and "fold<" not in svg and "&lt;hand&gt;" in svg and "t&lt;i&gt;" in svg
    out = tmp_path / "page.html"
    assert main([str(solved_file), "--html", str(out)]) == 0
    assert "Charts per hand" in out.read_text()


def _one_row(reader):
    from distcfr.games.nl27_tables import Spot

    spot = reader.decision(())
    return Spot(["fold<", *spot.columns[1:]], spot.freq[:1], spot.reach[:1])


def match_json(argv, tmp_path):
    from distcfr.match import main

    path = tmp_path / "match.json"
    assert main([*argv, "--json", str(path)]) == 0
    return json.loads(path.read_text())


def test_random_against_random_is_the_same_in_both_seats(tmp_path):
    data = match_json(["--game", TINY, "random", "random"], tmp_path)
    first, second = (row["exact_ev"] for row in data["seats"])
    assert first == pytest.approx(second, abs=1e-12)
    assert data["exact_ev"] == pytest.approx(0.0, abs=1e-12)
    assert first != 0


def test_a_strategy_against_itself_is_its_value(solved, solved_file, tmp_path):
    data = match_json([str(solved_file), str(solved_file)], tmp_path)
    assert data["seats"][0]["exact_ev"] == pytest.approx(solved.value(0), abs=1e-9)
    against_random = match_json([str(solved_file), "random"], tmp_path)
    assert against_random["exact_ev"] > 0.1  # the solved strategy beats uniform play over both seats


def test_simulated_games_are_refused_for_nl27(solved_file, capsys):
    from distcfr.match import main

    assert main([str(solved_file), "random", "--games", "100"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nl27 matches are exact" in err


def test_a_page_of_several_stacks_draws_the_opening_across_them():
    from distcfr.present.html_report import exact_page

    game = distcfr.load_game("nl27(ranks=5,suits=1,hand=1,stacks=3:5:2)")
    page = exact_page(Strategy.from_dict(game, {"4|": {"open 2.5": 1.0}}), "two stacks")
    assert "button&#x27;s opening per hand (rows) and stack (columns)" in page
    assert "4 at 5BB: fold 0%, limp 0%, open 100%, all-in 0%" in page
    assert page.count("<details class='variant'") >= 2  # each stack's charts and tables


def test_a_stack_too_small_for_the_open_shows_no_line_through_it():
    game = distcfr.load_game("nl27(ranks=5,suits=1,hand=1,stacks=2:12:10,open=2.5/4)")
    uniform = Strategy.from_dict(game, {})
    small = strategy_tables(game, uniform, 0)  # at 2 BB no open can be made: uniform over the other three
    assert dict(by_title(small, "button's opening").rows)["2"] == ["33", "33", None, None, "33"]
    assert not any("open" in column for column in by_title(small, "big blind's response").columns)
    assert not [t for t in small if "open 2.5-call" in t.title]
    big = strategy_tables(game, uniform, 1)
    assert "open 4: call" in by_title(big, "big blind's response").columns
    assert [t for t in big if t.title.startswith("after the draw, open 4-call")]


def test_show_hand_prints_that_hands_rows_only(solved, solved_file, capsys, tmp_path):
    from distcfr.show import main

    assert main([str(solved_file), "--hand", "3"]) == 0
    out = capsys.readouterr().out
    assert "stack 5BB: 3 ==" in out
    opening = out[out.index("button's opening"):].splitlines()
    assert opening[2].split() == ["3", *(f"{100 * p:.0f}" for p in solved.action_probs("3|").values())]
    assert not any(line.split()[:1] == ["4"] for line in out.splitlines())  # no other hand's row
    kuhn = tmp_path / "kuhn.msgpack"
    Strategy.from_dict(distcfr.load_game("kuhn"), {}).save(kuhn)
    for argv in ([str(solved_file), "--hand", "33"], [str(solved_file), "--hand", "3", "--format", "json"],
                 [str(kuhn), "--hand", "K"]):
        assert main(argv) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1

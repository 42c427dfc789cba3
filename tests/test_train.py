"""python -m distcfr.train in players' units: exploitability in BB and mBB per hand (chips per game
for the chip games) in progress lines and end-of-run summaries, read back against the summary
JSON; and a sampled run's target on the upper end of its bracket."""

import functools
import json
import math
import re

import numpy as np
import pytest
from printed import shown

from distcfr.engine.sampled_bracket import REFINE
from distcfr.engine.sampled_draw27 import SampledDraw27
from distcfr.errors import BadParameter
from distcfr.evaluate.class_strategy import MAX_PER_CLASS
from distcfr.evaluate.units import figure
from distcfr.present.run_summary import duration
from distcfr.progress import Progress
from distcfr.solve.sampled_run import PROGRESS_SHARE
from distcfr.train import main

RUN_POLICY = "distcfr.solve.sampled_run"  # where a sampled run's settings live

SMALL = "draw27(ranks=6,suits=2,hand=2,stacks=3)"  # 36 hand classes: a bracket of 16,000 per class in ~2 s
FIGURE = r"(\d+\.\d+|\d\.\d\de-\d\d|0)"
BB = rf"{FIGURE} BB \({FIGURE} mBB\)"
BB_PER_HAND = rf"{BB} per hand"
SAMPLED_ROW = re.compile(rf"^\s+(\S+)\s+value \S+ \+- \S+ BB\s+exploitability {BB_PER_HAND}, in \[{FIGURE}, "
                         rf"{FIGURE}\] BB$")


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per figure, whatever the terminal running the tests


def train(tmp_path, capsys, *argv):
    """Run train with ``argv``; returns (stdout, stderr, summary)."""
    summary = tmp_path / "s.json"
    assert main([*argv, "--workers", "0", "--no-tables", "--out", str(tmp_path / "s.msgpack"),
                 "--summary-json", str(summary)]) == 0
    out, err = capsys.readouterr()
    return out, err, json.loads(summary.read_text())


def test_a_sampled_summary_says_each_stacks_exploitability_in_bb_and_mbb_with_its_interval(tmp_path, capsys):
    out, _, data = train(tmp_path, capsys, "--game", "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)", "--sampling",
                         "--iterations", "5", "--bracket-samples", "200", "--quiet")
    rows = [SAMPLED_ROW.match(line) for line in out.splitlines() if "  value " in line]
    assert [row.group(1) for row in rows] == ["2BB", "3BB"]
    for row, stack in zip(rows, data["per_variant"]):
        bb, mbb, lo, hi = row.groups()[1:]
        assert shown(bb, stack["exploitability"]) and shown(mbb, 1000 * stack["exploitability"])
        assert shown(lo, stack["exploitability_ci"][0]) and shown(hi, stack["exploitability_ci"][1])


def test_a_sampled_run_of_a_small_deck_adds_the_exact_exploitability_of_what_it_saved(tmp_path, capsys):
    from distcfr.evaluate.load import load_strategy
    from distcfr.show import main as show

    spec = "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)"
    out, _, data = train(tmp_path, capsys, "--game", spec, "--sampling", "--iterations", "5", "--bracket-samples",
                         "200", "--quiet", "--exact-exploitability")
    saved = load_strategy(tmp_path / "s.msgpack")
    exact = saved.to_exact().exploitability_per_variant()  # the file's float16 strategy, enumerated apart
    assert [row["exploitability_exact"] for row in data["per_variant"]] == pytest.approx(exact, rel=1e-9)
    assert exact.min() > 1e-4  # 5 iterations: far from equilibrium, so the figures mean something
    summary = data["exploitability_exact"]
    inside = [lo <= x <= hi for x, (lo, hi) in zip(exact, (r["exploitability_ci"] for r in data["per_variant"]))]
    assert summary["largest"] == pytest.approx(exact.max()) and summary["inside_interval"] == all(inside)
    lines = [line for line in out.splitlines() if " exact " in line]
    for line, label, x, ok in zip(lines, ["2BB", "3BB"], exact, inside):
        match = re.match(rf"^\s+{label}  exact {BB_PER_HAND}, (inside|outside) the interval$", line)
        assert match and shown(match.group(1), x) and match.group(3) == ("inside" if ok else "outside")
    assert re.search(r"the exact figure: every deal enumerated, the strategy as saved, \d+\.\d s", out)
    assert [row["exploitability_exact"] for row in saved.meta["evaluation"]] == pytest.approx(exact, rel=1e-9)

    assert show([str(tmp_path / "s.msgpack")]) == 0  # the file keeps it, and show prints it
    shown_lines = [line for line in capsys.readouterr().out.splitlines() if "exact exploitability" in line]
    assert len(shown_lines) == 2 and all(line.endswith("per hand (every deal enumerated)") for line in shown_lines)


def test_show_exact_enumerates_a_sampled_file_and_a_run_says_when_it_could(tmp_path, capsys):
    from distcfr.evaluate.load import load_strategy
    from distcfr.show import main as show

    out, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "3", "--bracket-samples",
                         "100", "--quiet")
    assert "exploitability_exact" not in data and data["exact_hint"] > 0
    assert re.search(r"the exact exploitability is in reach on this deck \((about \d+ s|under a second)\): "
                     r"--exact-exploitability, or python -m distcfr.show FILE --exact", out)
    path = str(tmp_path / "s.msgpack")
    assert show([path]) == 0 and "exact exploitability" not in capsys.readouterr().out
    assert show([path, "--exact", "--format", "json", "--out", str(tmp_path / "e.json")]) == 0
    capsys.readouterr()
    evaluation = json.loads((tmp_path / "e.json").read_text())["evaluation"]
    exact = load_strategy(path).to_exact().exploitability_per_variant()
    assert [row["exploitability_exact"] for row in evaluation] == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("argv, says", [
    (["--game", "draw27(ranks=13,suits=4,hand=5,stacks=10)", "--exact-exploitability"],
     "the exact exploitability of draw27(suits=4,hand=5,stacks=10) is out of reach: draw27 with 13 ranks, 4 suits"),
    (["--game", "kuhn", "--exact-exploitability"], "--exact-exploitability is a sampled solve's option"),
])
def test_exact_exploitability_out_of_reach_is_refused_before_the_run(tmp_path, capsys, argv, says):
    assert main([*argv, "--iterations", "1", "--out", str(tmp_path / "s.msgpack")]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"distcfr.train: error: {says}") and err.count("\n") == 1
    assert not (tmp_path / "s.msgpack").exists()


def test_show_exact_refuses_an_exact_file(tmp_path, capsys):
    from distcfr.show import main as show

    path = str(tmp_path / "k.msgpack")
    assert main(["--game", "kuhn", "--iterations", "5", "--quiet", "--no-tables", "--out", path]) == 0
    capsys.readouterr()
    assert show([path, "--exact"]) == 2
    assert capsys.readouterr().err == ("distcfr.show: error: --exact goes with a sampled file (an exact "
                                       "file's exploitability is exact)\n")


def test_a_sampled_run_reads_its_values_on_the_same_deals_and_says_how_far_they_moved(tmp_path, capsys, monkeypatch):
    from distcfr.evaluate.load import load_strategy

    monkeypatch.setattr(RUN_POLICY + ".READ_SHARE", 1.0)  # every due reading is taken, however long it takes
    monkeypatch.setattr(RUN_POLICY + ".READ_DEALS", 36 * 300)
    spec = "draw27(ranks=6,suits=2,hand=2,stacks=2:8:3)"
    out, _, data = train(tmp_path, capsys, "--game", spec, "--sampling", "--iterations", "30", "--eval-every", "5",
                         "--bracket-samples", "100", "--quiet")
    s = data["settling"]
    readings = s["readings"]
    assert [r["iteration"] for r in readings] == [5, 10, 15, 20, 25, 30] and s["per_class"] == 300
    assert s["deals"] == 300 * 36 and s["to"]["iteration"] == 30
    middle = next(r for r in readings if r["iteration"] == s["from"]["iteration"])
    assert middle is not readings[-1]
    assert s["value_moves"] == pytest.approx(np.subtract(readings[-1]["value"], middle["value"]), abs=1e-15)
    assert s["largest_value_move"] == pytest.approx(np.abs(s["value_moves"]).max(), abs=1e-15)
    value, se = load_strategy(tmp_path / "s.msgpack").values(300)  # the file's float16 strategy, read again
    assert readings[-1]["value"] == pytest.approx(value, abs=1e-6) and readings[-1]["value_se"] == pytest.approx(se)
    line = next(line for line in out.splitlines() if line.startswith("  settling: "))
    start = s["from"]["iteration"]
    assert re.fullmatch(rf"  settling: between \d+ s and \d+ s into the run \(iterations {start} -> 30\) the "
                        rf"values moved by at most {FIGURE} BB per stack(, the break-even stacks .*)? \(on the "
                        r"same 10,800 deals each time, 300 per hand class\)", line)
    assert shown(re.search(rf"at most {FIGURE} BB per stack", line).group(1), s["largest_value_move"])


def test_value_readings_estimate_the_exact_value_within_their_standard_error():
    from distcfr.solve.launch import open_solver

    with open_solver("draw27(ranks=6,suits=2,hand=2,stacks=2:8:3)", sampling=True, workers=0, seed=2) as solver:
        strategy = solver.solve(20)
    value, se = strategy.values(2000)
    exact = strategy.to_exact().value_per_variant
    assert (se > 0).all() and (se < 0.02).all()
    assert np.abs(value - exact).max() < 4 * se.max()  # 4 standard errors: fails once in ~16,000 draws
    again, _ = strategy.values(2000)
    other, _ = strategy.values(2000, seed=5)
    assert again.tobytes() == value.tobytes() and other.tobytes() != value.tobytes()  # fixed deals, per seed


def test_settling_reads_the_moves_from_the_reading_nearest_half_the_run_to_the_last():
    from distcfr.evaluate.summary import settling

    readings = [{"seconds": t, "iteration": i, "value": v} for t, i, v in
                [(10, 1, [0.30, -0.20, -0.5]), (48, 5, [0.20, -0.10, -0.40]), (70, 7, [0.21, 0.05, -0.39]),
                 (100, 9, [0.22, 0.06, -0.30])]]
    s = settling(readings, [1.0, 2.0, 3.0], 8, 800)
    assert s["from"] == {"seconds": 48, "iteration": 5} and s["to"] == {"seconds": 100, "iteration": 9}
    assert s["value_moves"] == pytest.approx([0.02, 0.16, 0.10]) and s["largest_value_move"] == pytest.approx(0.16)
    assert s["break_even_from"] == pytest.approx([1 + 0.2 / 0.3])
    assert s["break_even_to"] == pytest.approx([2 + 0.06 / 0.36])
    assert s["largest_break_even_move"] == pytest.approx(2 + 0.06 / 0.36 - 1 - 0.2 / 0.3)
    assert settling(readings[:2], [1.0, 2.0, 3.0], 8, 800) is None
    one = settling([{**r, "value": r["value"][:1]} for r in readings], None, 8, 800)
    assert "break_even_from" not in one and one["value_moves"] == pytest.approx([0.02])


def test_a_sampled_summary_says_what_its_bracket_cost(tmp_path, capsys):
    out, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "5", "--bracket-samples",
                         "200", "--quiet")
    cost = data["bracket"]
    assert cost["per_class"] == 200 and cost["workers"] == 0 and cost["seconds"] > 0
    assert cost["deals"] == 4 * 200 * 36 + cost["refine_deals"] + cost["focus_deals"]
    assert cost["refine_deals"] % (REFINE * 200) == 0 and cost["focus_deals"] > 0
    line = next(line for line in out.splitlines() if line.startswith("  the bracket: "))
    assert line == (f"  the bracket: {cost['deals']:,} deals (200 per hand class in each player's two sets, "
                    f"{cost['refine_deals']:,} refining close classes in 2 rounds, {cost['focus_deals']:,} choosing "
                    f"again the least certain classes) in {cost['seconds']:.1f} s")


def test_the_final_bracket_says_how_long_it_may_take_from_the_last_progress_bracket(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(RUN_POLICY + ".EVAL_SHARE", math.inf)  # every due bracket runs, however long it takes
    monkeypatch.setattr(RUN_POLICY + ".SAY_FINAL_BRACKET_TIME", 0.0)  # said however short (from 10 s in use)
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "6", "--eval-every", "2",
                         "--bracket-samples", "400")
    last = [h for h in data["bracket_history"] if h["per_class"] == 100][-1]  # a quarter of the samples
    line = next(line for line in err.splitlines() if line.startswith("  final exploitability bracket: "))
    took = last["bracket_seconds"]
    assert line.endswith(f"; about {duration(4 * took)}")  # the last progress bracket's time, scaled by the deals


def test_the_last_iteration_gets_the_final_bracket_once_not_a_screen_before_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(RUN_POLICY + ".EVAL_SHARE", math.inf)  # every due bracket runs, however long it takes
    # (a deck whose progress brackets go on: on SMALL they stop at once, noise-bound, and the end makes the final one)
    _, err, data = train(tmp_path, capsys, "--game", "draw27(ranks=8,suits=2,hand=3,stacks=10)", "--sampling",
                         "--iterations", "20", "--eval-every", "10", "--bracket-samples", "400")
    assert [(h["iteration"], h["per_class"]) for h in data["bracket_history"]] == [(10, 100), (20, 400)]
    assert data["bracket"]["per_class"] == 400 and data["bracket"]["seconds"] == data["bracket_history"][-1][
        "bracket_seconds"]  # the end kept it: not computed again
    assert err.count("  final exploitability bracket: 400 deals per hand class") == 1
    assert data["exploitability"] == data["bracket_history"][-1]["high"]
    final = data["bracket_history"][-1]  # the run's time (and deals/s) is its iterations', as when the end makes it
    assert data["wall_seconds"] == pytest.approx(final["seconds"] - final["eval_seconds"], abs=0.5)


def test_bracket_rounds_say_how_far_close_classes_are_refined(tmp_path, capsys):
    refined = []
    for rounds in (0, 1, 2):
        _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "5",
                             "--bracket-samples", "200", "--bracket-rounds", str(rounds))
        cost = data["bracket"]
        assert cost["refine_rounds"] == rounds
        assert cost["deals"] == 4 * 200 * 36 + cost["refine_deals"] + cost["focus_deals"]
        line = next(line for line in err.splitlines() if line.startswith("  final exploitability bracket: "))
        words = {0: "no refinement of close classes (--bracket-rounds 0)",
                 1: f"plus {REFINE * 200:,} for each class whose best response is close",
                 2: f"plus {REFINE * 200:,} for each class whose best response is close, "
                    f"{REFINE * (1 + REFINE) * 200:,} more for each still close"}
        said = f"  final exploitability bracket: 200 deals per hand class, {4 * 200 * 36:,} deals, {words[rounds]}"
        assert line == said
        refined.append(cost["refine_deals"])
    assert refined[0] == 0 < refined[1] <= refined[2]  # a second round adds to the first's deals (the same ones)


def test_bracket_focus_sets_the_focus_rounds_deals(tmp_path, capsys):
    spent = {}
    for share in (0, 1, 8):
        _, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "5",
                           "--bracket-samples", "200", "--bracket-focus", str(share), "--quiet")
        spent[share] = data["bracket"]["focus_deals"]
        assert data["bracket"]["deals"] == 4 * 200 * 36 + data["bracket"]["refine_deals"] + spent[share]
    # the budget is the share times each player's two first sets, both players
    assert spent[0] == 0 < spent[1] <= 2 * 2 * 200 * 36 < spent[8] <= 8 * 2 * 2 * 200 * 36, spent


@pytest.mark.parametrize("game", [SMALL, "draw27(ranks=6,suits=2,hand=2,stacks=2:3:1)"])
def test_progress_lines_say_the_brackets_worst_stack_in_bb_and_mbb(tmp_path, capsys, monkeypatch, game):
    monkeypatch.setattr("distcfr.train.Progress", functools.partial(Progress, log_every=0.0))  # a line per iteration
    # (iteration 4 is not the last: there the final bracket would come at once, not a screen)
    _, err, data = train(tmp_path, capsys, "--game", game, "--sampling", "--iterations", "8", "--eval-every", "4",
                         "--target-exploitability", "1.0")
    last = [line for line in err.splitlines() if line.startswith("  iteration 4/8")][-1]
    found = re.search(rf"exploitability {BB_PER_HAND}, in \[{FIGURE}, {FIGURE}\] BB(.*) \(iteration 4\)", last)
    # the quarter-sample bracket at iteration 4 meets the target, which a bracket of the final samples then
    # confirms: that one is the progress line's and the summary's (not computed again)
    assert data["target"]["reached"] and data["target"]["evaluations"] == 1
    worst = max(data["per_variant"], key=lambda row: row["exploitability_ci"][1])
    bb, mbb, lo, hi, where = found.groups()
    assert shown(bb, worst["exploitability"]) and shown(mbb, 1000 * worst["exploitability"])
    assert shown(lo, worst["exploitability_ci"][0]) and shown(hi, worst["exploitability_ci"][1])
    assert where == ("" if len(data["per_variant"]) == 1 else f" at {worst['variant']}, the worst of 2 stacks")
    screen = MAX_PER_CLASS // PROGRESS_SHARE
    cost = re.search(rf"bracket: {screen:,} deals per hand class \({4 * 36 * screen:,} deals, ([\d,]+) more refining "
                     r"close classes, [\d,]+ choosing again the least certain\) in \S+ s; "
                     r"one at most every 4 iteration\(s\), kept to 10% of the run's time; "
                     rf"one that would stop the run is checked on {MAX_PER_CLASS:,}\n", err)
    assert int(cost.group(1).replace(",", "")) % (REFINE * screen) == 0  # REFINE x the samples for each close class
    assert data["bracket"]["per_class"] == MAX_PER_CLASS
    last = data["bracket_history"][-1]  # a screen, then the bracket kept: the summary gives the latter's time
    assert data["bracket"]["seconds"] == last["bracket_seconds"] < last["eval_seconds"]


def test_progress_brackets_stop_once_one_cannot_tell_the_strategy_from_an_equilibrium(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(RUN_POLICY + ".EVAL_SHARE", math.inf)  # every due bracket runs, however long it takes
    monkeypatch.setattr(RUN_POLICY + ".MIN_PROGRESS_PER_CLASS", 2)  # and made of 2 deals per class (16 in use)
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "60", "--eval-every", "5",
                         "--bracket-samples", "8")
    stopped = re.search(r"progress brackets stop at iteration (\d+): at 2 deals per hand class they cannot tell this "
                        rf"strategy from an equilibrium: {BB_PER_HAND}, in \[{FIGURE}, {FIGURE}\] BB, all within the "
                        r"bracket's resolution \S+ BB \(\S+ mBB\); the final bracket has 8 per class", err)
    progress = [h for h in data["bracket_history"] if h["per_class"] == 2]
    assert stopped and int(stopped.group(1)) == progress[-1]["iteration"] < 60  # none after the one that said so
    assert [h["iteration"] for h in progress] == list(range(5, progress[-1]["iteration"] + 1, 5))
    assert data["bracket"]["per_class"] == 8 and data["iterations"] == 60  # the run and its final bracket go on
    assert err.count("progress brackets stop") == 1


def test_progress_brackets_too_small_to_tell_anything_are_not_made(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(RUN_POLICY + ".READ_SHARE", 1.0)  # every due reading is taken, however long it takes
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "20", "--eval-every", "5",
                         "--bracket-samples", "8")
    assert err.count("  progress brackets: none; at 2 deals per hand class (a quarter of the final bracket's) they "
                     "could not tell this strategy from an equilibrium; the final bracket, 8 per class, comes at the "
                     "end") == 1
    assert data["bracket_history"] == [] and data["bracket"]["per_class"] == 8
    assert [r["iteration"] for r in data["settling"]["readings"]] == [5, 10, 15, 20]  # the readings go on


def test_a_progress_bracket_waits_until_its_expected_time_fits_the_brackets_share(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(SampledDraw27, "bracket_deal_cost", 10**9)  # one would take days
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "20", "--eval-every", "5",
                         "--bracket-samples", "400")
    said = re.findall(r"  progress brackets: one of 100 deals per hand class may take about (.+); kept to 10% of the "
                      r"run's time, the first comes after about (.+) of the run \(the final bracket, 400 per class, "
                      r"comes at the end\)", err)
    assert len(said) == 1 and "day" in said[0][0]
    assert [h["iteration"] for h in data["bracket_history"]] == [20]  # the final one, at the last iteration
    _, err, _ = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--minutes", "0.02", "--eval-every", "5",
                      "--bracket-samples", "400")
    assert "kept to 10% of the run's time, none comes before the run's end" in err
    monkeypatch.setattr(RUN_POLICY + ".DEFAULT_MINUTES", 0.02)  # the limit of a run given no stopping rule
    _, err, _ = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--eval-every", "5", "--bracket-samples", "400")
    assert "kept to 10% of the run's time, none comes before the run's end" in err
    monkeypatch.setattr(SampledDraw27, "bracket_deal_cost", 0)  # free: due ones are made while they take their share
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "20", "--eval-every", "5",
                         "--bracket-samples", "400")
    assert data["bracket_history"][0]["iteration"] == 5 and "progress brackets: one of" not in err


def test_exact_results_say_bb_and_mbb_per_hand_and_chip_games_chips_per_game(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("distcfr.train.Progress", functools.partial(Progress, log_every=0.0))
    out, err, data = train(tmp_path, capsys, "--game", "draw27(stacks=3:5:1)", "--iterations", "40")
    rows = [re.match(rf"^\s+(\S+)\s+[+-]\S+\s+{FIGURE} BB \({FIGURE} mBB\)$", line) for line in out.splitlines()]
    rows = [row for row in rows if row]
    assert [row.group(1) for row in rows] == ["3BB", "4BB", "5BB"] and "exploitability per hand" in out
    for row, stack in zip(rows, data["per_stack"]):
        assert shown(row.group(2), stack["exploitability"]) and shown(row.group(3), 1000 * stack["exploitability"])
    last = [line for line in err.splitlines() if line.startswith("  iteration 40/40")][-1]
    worst = re.search(rf"exploitability {BB_PER_HAND} \(worst of 3 stacks\)", last)
    assert shown(worst.group(1), data["exploitability"])

    out, err, data = train(tmp_path, capsys, "--game", "kuhn", "--iterations", "40")
    said = re.search(r"exploitability (\S+) chips per game  value \(player 1\) \S+ chips", out)
    assert shown(said.group(1), data["exploitability"]) and "BB" not in out + err
    progress = re.search(r"iteration 40/40 \(100%\)  .*  exploitability (\S+) chips per game$", err, re.M)
    assert shown(progress.group(1), data["exploitability"])


def test_a_sampled_run_stops_once_the_brackets_upper_end_is_at_most_the_target(tmp_path, capsys):
    out, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--target-exploitability", "0.05",
                         "--iterations", "100000", "--eval-every", "5", "--quiet")
    assert data["iterations"] < 100000 and data["iterations"] % 5 == 0
    target = data["target"]
    assert target["reached"] and target["upper_end"] <= 0.05 and target["upper_end"] == data["exploitability_ci"][1]
    line = re.search(rf"target 0.05 BB per hand reached: the bracket's upper end is {BB} at 3BB", out)
    assert float(line.group(1)) <= 0.05 and shown(line.group(1), target["upper_end"])
    assert data["bracket_history"][-1]["iteration"] == data["iterations"]  # the final bracket is the one that met it


def test_a_target_below_what_the_bracket_resolves_is_said_out_of_reach(tmp_path, capsys):
    # no --iterations or --minutes: the run stops at the evaluation that finds it out of reach (20 deals per
    # class resolve 0.032 BB after 10 iterations)
    out, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--target-exploitability", "0.02",
                           "--bracket-samples", "20")
    target = data["target"]
    assert data["iterations"] == 10 and target["out_of_reach"] and target["gave_up"] and not target["reached"]
    assert target["resolution"] > 0.02 and target["samples_to_resolve"] > 20
    said = (f"out of reach of the bracket at --bracket-samples 20, which resolves {figure(target['resolution'])} "
            f"BB (its estimates' gap plus 1.96 standard errors, both ~1/sqrt(samples)); --bracket-samples "
            f"{target['samples_to_resolve']:,} would resolve it")
    assert "  target 0.02 BB per hand not reached: the bracket's upper end is " in out
    assert said + "; the run stopped there (no --iterations or --minutes)" in out
    assert f"  target 0.02 BB per hand: {said}" in err  # said as soon as it was found, too
    out, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--target-exploitability", "0.0005",
                         "--bracket-samples", "20", "--quiet")
    assert data["target"]["samples_to_resolve"] > 131_072 and "beyond the most allowed (131,072, which resolves" in out


def test_a_run_whose_budget_ends_before_its_target_says_how_far_it_got(tmp_path, capsys):
    out, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--target-exploitability", "0.012",
                         "--iterations", "6", "--eval-every", "2", "--bracket-samples", "4000", "--quiet")
    target = data["target"]
    assert data["iterations"] == 6 and not target["reached"] and not target["out_of_reach"]
    line = re.search(rf"target 0.012 BB per hand not reached in the run's budget: the bracket's upper end is "
                     rf"{BB} at 3BB; (.*)$", out, re.M)
    assert shown(line.group(1), target["upper_end"]) and target["upper_end"] > 0.012
    assert "iterations in all" in line.group(3) or "cannot be estimated yet" in line.group(3)
    assert f"its {target['evaluations']} evaluation(s) took" in line.group(3)


@pytest.mark.parametrize("value, message", [("0", "must be a positive number"), ("-0.01", "must be a positive number"),
                                            ("nan", "must be a positive number"), ("inf", "must be a positive number"),
                                            ("0.01BB", "not a number")])
def test_a_bad_target_is_one_line_and_exit_2(tmp_path, capsys, value, message):
    out = tmp_path / "s.msgpack"
    assert main(["--game", SMALL, "--sampling", "--target-exploitability", value, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "--target-exploitability" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_workers_gone_when_the_interrupted_strategy_is_gathered_end_the_run_in_one_line(tmp_path, capsys, monkeypatch):
    """A signal to the whole group: the run loop saw Ray still up, then gathering the average strategy
    finds the workers gone. One line, exit 130 at once, no file half-written."""
    import argparse
    import os

    from distcfr.errors import WorkersLost
    from distcfr.train import _SampledRun

    class GoneWorkers:
        iteration, mode = 7, "sampled"

        def workers_alive(self):  # as Ray saw them just before
            return True

        def abandon_work(self):
            pass

        def average_strategy(self):
            raise WorkersLost("a sampled worker died and its table rows with it")

    def exit_now(code):
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", exit_now)
    (tmp_path / "ck").write_bytes(b"last save")
    args = argparse.Namespace(out=str(tmp_path / "s.msgpack"), checkpoint=str(tmp_path / "ck"))
    with pytest.raises(SystemExit) as ended:
        _SampledRun(args, None, False).interrupted(GoneWorkers())
    err = capsys.readouterr().err.strip().splitlines()
    assert ended.value.code == 130 and not (tmp_path / "s.msgpack").exists()
    assert err == [f"distcfr.train: stopped at iteration 7; the workers were stopped too (a signal to the whole "
                   f"process group), and the state they held with them; {tmp_path / 'ck'} keeps its last save"]


def test_a_screen_meeting_the_target_stops_the_run_only_where_the_final_samples_agree(tmp_path, capsys, monkeypatch):
    # a target run's brackets are screens of a quarter of the samples; one that would stop the run is checked on
    # the final samples, which decide: here every screen meets the target and no final bracket does
    from distcfr.evaluate.sampled import Bracket
    from distcfr.solve.sampled_solver import SampledSolver

    asked = []

    def bracket(self, per_class=None, seed=0, rounds=2, focus=8):
        asked.append(per_class)
        high = 0.001 if per_class < MAX_PER_CLASS else 0.02  # a screen meets 0.01, the final samples do not
        one = np.ones(len(self.kernel.stacks))
        return Bracket(0.01 * one, 1e-4 * one, high * one, 1e-4 * one, 0 * one, 1e-3 * one, per_class)

    monkeypatch.setattr(SampledSolver, "bracket", bracket)
    _, _, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--target-exploitability", "0.01",
                       "--iterations", "6", "--eval-every", "2", "--quiet")
    assert data["iterations"] == 6 and not data["target"]["reached"]  # no screen stopped it
    screens = [i for i, n in enumerate(asked) if n == MAX_PER_CLASS // PROGRESS_SHARE]
    assert screens and all(asked[i + 1] == MAX_PER_CLASS for i in screens)  # each screen checked on the final samples
    assert data["bracket"]["per_class"] == MAX_PER_CLASS and data["target"]["upper_end"] > 0.01


def test_a_short_runs_final_bracket_is_sized_to_the_run_and_says_the_full_default(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(RUN_POLICY + ".FINAL_FLOOR_SECONDS", 0.0)  # no floor: the share alone bounds it
    monkeypatch.setattr(RUN_POLICY + ".FINAL_SHARE", 1e-9)  # a share no bracket fits in
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "3")
    assert (data["bracket"]["per_class"], data["bracket"]["refine_rounds"]) == (2, 0)  # the least: 2 a class, no round
    line = next(line for line in err.splitlines() if line.startswith("  final exploitability bracket: "))
    assert line.startswith("  final exploitability bracket: 2 deals per hand class")
    assert f"the full default, --bracket-samples {MAX_PER_CLASS:,} --bracket-rounds 2, may take about" in line
    assert "the final bracket takes at most about" in err  # said as the run begins
    _, err, data = train(tmp_path, capsys, "--game", SMALL, "--sampling", "--iterations", "3", "--bracket-samples",
                         "400")
    assert data["bracket"]["per_class"] == 400 and data["bracket"]["refine_rounds"] == 2  # as asked: not sized
    assert "sized to the run" not in err and "takes at most about" not in err


def test_nl27s_final_bracket_says_nothing_of_refinement(tmp_path, capsys, monkeypatch):
    """nl27's best response has no close classes to choose again: its announcement names no rounds."""
    monkeypatch.setattr(RUN_POLICY + ".FINAL_FLOOR_SECONDS", 0.0)
    monkeypatch.setattr(RUN_POLICY + ".FINAL_SHARE", 1e-9)
    _, err, data = train(tmp_path, capsys, "--game", "nl27(ranks=5,suits=2,hand=1,stacks=4,draw=rule,post=value)",
                         "--sampling", "--iterations", "3", "--batch", "200")
    line = next(line for line in err.splitlines() if line.startswith("  final exploitability bracket: "))
    assert "refinement" not in line and "--bracket-rounds" not in line and data["bracket"]["refine_rounds"] == 0
    assert "the full default, --bracket-samples" in line, line


@pytest.mark.slow
def test_a_sampled_nl27_run_on_ray_writes_its_plot_and_ends_well(ray_local, tmp_path, capsys):
    """nl27's run plot has its own action panels (the button's first action, the big blind's folds)."""
    png = tmp_path / "run.png"
    assert main(["--game", "nl27(ranks=5,suits=2,hand=1,stacks=4:8:4,draw=rule,post=value)", "--sampling",
                 "--iterations", "3", "--batch", "200", "--workers", "2", "--bracket-samples", "20", "--quiet",
                 "--out", str(tmp_path / "s.msgpack"), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "plot written to" in capsys.readouterr().out


@pytest.mark.parametrize("error, said, code", [
    (ValueError("the plot failed"), "ValueError: the plot failed", 1),
    (BadParameter("no such stack"), "distcfr.train: error: no such stack", 2),
    (KeyboardInterrupt(), "distcfr.train: stopped; Ray's processes were stopped too", 130)])
def test_an_error_at_a_runs_end_is_said_where_ray_does_not_stop_in_time(monkeypatch, error, said, code):
    """An error on its way out of a Ray run (Ray given seconds to stop, and not done) ends the process
    with that error's words: never taken for a stop and lost."""
    from distcfr.solve import run_session

    def end_process(line, code=130):
        raise SystemExit((line, code))

    class Solver:
        def workers_alive(self):
            return True

        def close(self, deadline):
            return False

    monkeypatch.setattr(run_session, "end_process", end_process)
    with pytest.raises(SystemExit) as ended:
        run_session.release(Solver(), stopped=True, said=False, error=error)
    assert said in ended.value.code[0] and ended.value.code[1] == code

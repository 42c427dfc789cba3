"""python -m distcfr.show on a sampled nl27 file (distcfr.present.nl27_sampled): the sections a 2-7
player studies, frequencies that add up per group, one hand's strategy, and the percentages a
hand-built pure strategy must print."""

import re

import numpy as np
import pytest

from distcfr.evaluate.class_strategy import ClassStrategy, load_class_strategy
from distcfr.games.registry import load_game
from distcfr.present.nl27_view import Nl27View, final_rows
from distcfr.show import main as show

SPEC = "nl27(ranks=6,suits=2,hand=2,stacks=4:8:4)"
POST_DEALS = 4000


def random_tables(kernel, seed: int) -> dict[str, np.ndarray]:
    """A mixed strategy: every row of every table a random distribution over its actions."""
    rng = np.random.default_rng(seed)
    tables = {}
    for table in kernel.strategy_tables:
        x = rng.random((kernel.table_rows(table), *table.shape), dtype=np.float32) ** 2 + 0.01
        tables[table.name] = x / x.sum(-1, keepdims=True)
    return tables


def saved(path, tables=None, seed: int = 1):
    """A sampled nl27 strategy file of SPEC (random tables unless given); (path, strategy read back)."""
    game = load_game(SPEC).sampled_form()
    strategy = ClassStrategy(game, {})
    strategy.tables = tables if tables is not None else random_tables(strategy.kernel, seed)
    strategy.meta = {"algorithm": "test", "iterations": 1, "deals": 10,
                     "evaluation": [{"variant": "4BB", "value": 0.125, "value_se": 0.01},
                                    {"variant": "8BB", "value": -0.25, "value_se": 0.02}]}
    strategy.save(path)
    return path, load_class_strategy(path)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return saved(tmp_path_factory.mktemp("nl27") / "mixed.msgpack")


def test_show_prints_every_section_per_stack(mixed, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    path, _ = mixed
    assert show([str(path)]) == 0
    out = capsys.readouterr().out
    for stack, value in (("4BB", "+0.1250"), ("8BB", "-0.2500")):
        assert f"== stack {stack}: button's value {value} +- " in out
    for section in ("button's first action, % of the group's hands", "big blind's response",
                    "button after limp, raise 3", "draws after limp-check", "snowing after limp-check",
                    "after the draw, limp-check: the big blind's first action", "after the draw, limp-check: facing",
                    "draws after open 2.5-call", "after the draw, open 2.5-call: facing", "bluffs after limp-check"):
        assert out.count(section) == 2, section  # once per stack
    assert max(len(line) for line in out.splitlines()) <= 100
    assert show([str(path), "--stack", "8"]) == 0
    out = capsys.readouterr().out
    assert "== stack 8BB" in out and "== stack 4BB" not in out


def test_frequencies_of_a_spot_add_up_to_one_per_row(mixed):
    _, strategy = mixed
    view = Nl27View(strategy, POST_DEALS)
    for v in range(2):
        spots = [view.decision((), v), *(view.decision(h, v) for h in view.responses() + view.raised())]
        for _, line in view.main_lines():
            spots += [*view.draws(line, v), *view.post(line, v).values()]
        for spot in spots:
            reached = ~np.isnan(spot.freq).all(1)
            assert reached.any(), spot.title
            assert np.allclose(np.nansum(spot.freq[reached], axis=1), 1.0), spot.title
    opening = view.opening(0)  # the merged kinds too, and over every group
    assert np.allclose(opening.freq.sum(1), 1.0) and np.isclose(opening.total().sum(), 1.0)


def test_the_printed_opening_adds_up_to_100_per_group(mixed, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    path, strategy = mixed
    assert show([str(path), "--stack", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("button's first action, %"))
    labels = [g.label for g in Nl27View(strategy, 0).groups.groups] + ["all"]
    rows = [line for line in lines[start:start + 4 + len(labels)] if line.strip().split("  ")[0] in labels]
    assert [line.strip().split("  ")[0] for line in rows] == labels
    for line, label in zip(rows, labels):
        hands, *actions = (int(x) for x in line.strip()[len(label):].split())
        assert len(actions) == 4 and abs(sum(actions) - 100) <= 2, line


def test_one_hand_prints_its_whole_strategy(mixed, capsys):
    path, strategy = mixed
    assert show([str(path), "--hand", "3d2c"]) == 0
    out = capsys.readouterr().out
    kernel = strategy.kernel
    assert "3d2c: hand class" in out and "group 3-low" in out and "final hand is 3-2" in out
    assert out.count("button, first action: ") == 2  # every decision before the draw, per stack
    assert out.count(", after ") == 2 * (len(kernel.pre_decisions) - 1)
    assert out.count("cards drawn on each line") == 2
    assert out.count("as the big blind standing pat") == 4 and out.count("as the button standing pat") == 4


def test_a_bad_hand_is_one_line_and_exit_2(mixed, capsys):
    path, _ = mixed
    for hand in ("8s6h", "3d3d", "2c"):
        assert show([str(path), "--hand", hand]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith("distcfr.show: error: --hand") and captured.err.count("\n") == 1
    assert show([str(path), "--format", "openspiel"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_json_holds_the_printed_tables(mixed, capsys):
    import json

    path, _ = mixed
    assert show([str(path), "--format", "json", "--stack", "8"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == load_game(SPEC).sampled_form().spec and [s["stack"] for s in data["stacks"]] == ["8BB"]
    assert data["stacks"][0]["evaluation"]["value"] == -0.25
    first = data["stacks"][0]["tables"][0]
    assert first["title"].startswith("button's first action") and first["rows"][-1]["row"] == "all"
    for row in first["rows"]:
        assert abs(sum(row["cells"][1:]) - 100) <= 2  # hands, then fold / limp / open / all-in
    assert any(t.get("note", "").startswith("snowing after limp-check") for t in data["stacks"][0]["tables"])


def test_html_and_plot(mixed, tmp_path, capsys):
    path, _ = mixed
    page = tmp_path / "page.html"
    assert show([str(path), "--html", str(page)]) == 0
    text = page.read_text()
    assert text.count("button&#x27;s first action, % of the group&#x27;s hands") == 2 and "<svg" in text
    from distcfr.present.html_report import html_report

    assert html_report(path) == text  # the library's call gives the page show writes
    pytest.importorskip("matplotlib")
    png = tmp_path / "open.png"
    assert show([str(path), "--plot", str(png), "--stack", "8"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def pure(kernel, groups) -> dict[str, np.ndarray]:
    """A hand-built strategy: the button folds its pair-or-worse hands and limps the rest, the big
    blind checks a limp, both stand pat, and after the draw the big blind bets every made low and
    checks every pair; everything else random."""
    tables = random_tables(kernel, 7)
    game = kernel.game
    pair = np.array([g.label.startswith("pair") for g in groups.groups])[groups.ids]  # (C,) bool
    root = next(d for d in kernel.pre_decisions if d.node == 0)
    table = tables["btn_pre"][:, root.index]  # (C, B, A)
    table[:] = 0
    table[pair, :, 0] = 1  # fold
    table[~pair, :, 1] = 1  # limp
    limp = next(d for d in kernel.pre_decisions if tuple(game.tree.histories[d.node]) == ("c",))
    tables["bb_pre"][:, limp.index] = 0
    tables["bb_pre"][:, limp.index, :, 0] = 1  # check
    li = next(i for i, n in enumerate(kernel.lines) if tuple(game.tree.histories[n]) == ("c", "k"))
    tables["bb_draw"][:, li] = 0
    tables["bb_draw"][:, li, :, 0] = 1
    tables["btn_draw"][:, li] = 0
    tables["btn_draw"][:, li, :, :, 0] = 1
    t = kernel.templates[li]
    first = t.decisions[0]  # the big blind acts first after the draw
    rows = final_rows(kernel.deck, kernel.hand, kernel.post)
    paired = np.array([label == "one pair" for label in rows.labels])[rows.of_key]  # (K,) per key
    cols = (t.base[1] + first.index) * kernel.k2 + np.arange(kernel.k2)
    block = tables["bb_post"][:, cols]  # (K, K2, B, A) a copy
    block[:] = 0
    block[paired, :, :, 0] = 1  # check
    block[~paired, :, :, 1] = 1  # the first bet
    tables["bb_post"][:, cols] = block
    return tables


def test_a_pure_strategy_prints_its_percentages(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    game = load_game(SPEC).sampled_form()
    kernel = ClassStrategy(game, {}).kernel
    view0 = Nl27View(ClassStrategy(game, random_tables(kernel, 1)), 0)
    path, strategy = saved(tmp_path / "pure.msgpack", pure(kernel, view0.groups))
    view = Nl27View(strategy, POST_DEALS)
    labels = [g.label for g in view.groups.groups]
    share = dict(zip(labels, view.weight))
    opening = view.decision((), 0)
    for label, row in zip(labels, opening.freq):
        assert row.tolist() == ([1, 0, 0, 0] if label.startswith("pair") else [0, 1, 0, 0]), label
    assert np.allclose(opening.total(), [share["pair or worse, no draw"], 1 - share["pair or worse, no draw"], 0, 0])
    bb, btn = view.draws(("c", "k"), 0)
    assert np.allclose(bb.freq[:, 0], 1.0) and np.allclose(btn.freq[~np.isnan(btn.freq[:, 0]), 0], 1.0)
    assert np.isnan(btn.freq[labels.index("pair or worse, no draw")]).all()  # the button never limps them
    made = view.made_groups()
    assert [label for label, m in zip(labels, made) if m] == ["3-low", "4-low", "5-low"]
    pat, weak, _ = view.snows(bb)
    assert np.isclose(pat, 1.0) and np.isclose(weak, 1 - sum(share[g] for g in ("3-low", "4-low", "5-low")))
    post = view.post(("c", "k"), 0)["bb"]
    for label, row in zip(view.final_rows.labels, post.freq):
        assert row.tolist() == ([0, 1] if label == "one pair" else [1, 0]), label

    assert show([str(path), "--stack", "4"]) == 0
    out = capsys.readouterr().out
    fold = 100 * share["pair or worse, no draw"]
    assert f"button: fold {fold:.1f}%, limp {100 - fold:.1f}%, open 0.0%, all-in 0.0% of dealt hands" in out
    assert re.search(r"pair or worse, no draw +\d+ +100 +0 +0 +0\n", out)
    assert re.search(r"\n +3-low +\d+ +0 +100 +0 +0\n", out)
    assert (f"the big blind stands pat with 100.0% of the hands it gets there with, {100 * weak:.1f}% without a "
            "made 5-low or better") in " ".join(out.split())
    after = out[out.index("after the draw, limp-check: the big blind's first action"):]
    assert re.search(r"one pair +\d+ +0 +100 ", after) and re.search(r"3-low +\d+ +100 +0 ", after)


def test_final_hands_fall_in_the_groups_players_name():
    from distcfr.cards import parse
    from distcfr.present.nl27_view import final_group

    hands = ["7c5d4h3s2c", "Kc9d4h3s2c", "7c6d5h4s3c", "9c7c5c4c2c", "4c4d7h3s2c", "4c4d7h7s2c", "4c4d4h7s2c",
             "4c4d4h7s7c", "4c4d4h4s7c"]
    ids, labels = final_group(np.array([parse(h) for h in hands]))
    assert [labels[i] for i in ids] == ["7-low", "K-low", "straight or flush", "straight or flush", "one pair",
                                        "two pair", "trips", "full house or quads", "full house or quads"]


def test_a_file_keyed_by_value_buckets_prints_a_row_per_bucket(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    game = load_game("nl27(ranks=6,suits=2,hand=2,stacks=4,post=3)").sampled_form()
    rows = final_rows(game.deck, 2, "3")
    assert len(rows.labels) == 3 and rows.labels[0].startswith("3-2 .. ") and (rows.of_key >= 0).all()
    strategy = ClassStrategy(game, {})
    strategy.tables = random_tables(strategy.kernel, 3)
    strategy.save(tmp_path / "buckets.msgpack")
    assert show([str(tmp_path / "buckets.msgpack")]) == 0
    out = capsys.readouterr().out
    after = out[out.index("after the draw, limp-check: the big blind's first action"):]
    for label in rows.labels:
        assert re.search(rf"\n *{re.escape(label)} +\d+ +\d+ +\d+ ", after), label
    assert "bluffs after" not in out  # buckets name no pair

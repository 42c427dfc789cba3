"""Lowball hand groups: the definitions on written hands, a scalar re-statement of the rules
against the vectorised one, shares against the hand-rank table (pat 9-low or better 2.0%, J-low
or better 9.7%), per-group frequencies against a brute force over every concrete hand, and the
table printed by train and show."""

import itertools
import json
import math

import numpy as np
import pytest

import distcfr
from distcfr.cards import RANKS, lowball27_rank, parse
from distcfr.engine.kernels import sampled_kernel
from distcfr.evaluate.class_strategy import ClassStrategy
from distcfr.games.hand_classes import HandClasses
from distcfr.present.lowball_groups import (
    PLAYED,
    all_groups,
    class_groups,
    group_of_hands,
    group_report,
    render_stack,
)

SMALL = "draw27(ranks=8,suits=2,hand=3,stacks=3:10:1)"


@pytest.fixture(scope="module")
def full():
    classes = HandClasses(13, 4, 5)
    return classes, class_groups(classes)


def label(text: str, ranks: int = 13) -> str:
    cards = parse(text)
    return all_groups(ranks, len(cards))[group_of_hands(cards[None], ranks)[0]].label


@pytest.mark.parametrize("hand,group", [
    ("7c5d4h3s2c", "7-low"), ("8c6d4h3s2c", "8-low"), ("9c8d7h6s4c", "9-low"), ("JcTd9h8s6c", "J-low"),
    ("7c6d5h4s3c", "draw 1 to a 7"),  # a straight: not a pat 7-low
    ("7c5c4c3c2c", "draw 1 to a 7"),  # a flush
    ("Kd7c4h3s2c", "draw 1 to a 7"),  # a made K-low, played as a one-card draw
    ("7c7d4h3s2c", "draw 1 to a 7"),  # a pair card to throw
    ("Ac5d4h3s2c", "draw 1 to a 7"),  # A-5-4-3-2 is no straight in deuce-to-seven
    ("9c8d7h6s5c", "draw 1 to an 8"), ("Kc9d8h6s2c", "draw 1 to a 9"),
    ("KcQd7h5s2c", "draw 2 to a 7"), ("8c8d5h5s2c", "draw 2 to an 8"), ("3c3d3h7s2c", "draw 2 to a 7"),
    ("QcJdTh9s2c", "Q-low, no draw"), ("KcQdJh9s2c", "K-low, no draw"), ("AcKdQhJs9c", "A-high, no draw"),
    ("AcKdQhJsTc", "straight or flush, no draw"), ("KcJc9c8c6c", "straight or flush, no draw"),
    ("KcKdQcQdJc", "pair or worse, no draw"), ("9c9d9hKsKc", "pair or worse, no draw"),
    ("2c2d2h2sKc", "pair or worse, no draw"), ("KcKd8h8s2c", "pair or worse, no draw"),
])
def test_groups_of_written_five_card_hands(hand, group):
    assert label(hand) == group


@pytest.mark.parametrize("hand,ranks,group", [
    ("4c3d2c", 8, "4-low"), ("4c3c2c", 8, "4-low"),  # no flushes under 5 cards
    ("8c7d6c", 8, "8-low"), ("9c8d7c", 8, "9-low, no draw"), ("5c5d3c", 8, "draw 1 to a 5"),
    ("9c8d2c", 8, "draw 2 to a 4"), ("7c7d7h", 8, "pair or worse, no draw"),
    ("Ac", 13, "A-high"), ("7d", 13, "7-low"), ("7c2d", 13, "7-low"), ("8c2d", 13, "draw 1 to a 3"),
])
def test_groups_of_written_small_hands(hand, ranks, group):
    assert label(hand, ranks) == group


def scalar_group(cards, ranks: int) -> str:
    """The module docstring's rules, hand by hand in plain Python."""
    h, rs = len(cards), sorted(c // 4 for c in cards)
    distinct = sorted(set(rs))
    made = len(distinct) == h and not (h == 5 and (len({c % 4 for c in cards}) == 1 or rs[-1] - rs[0] == 4))
    b = min(5 if h == 5 else h - 1, ranks - 1)
    if made and rs[-1] <= (ranks - 1 if h == 1 else min(b + 4, ranks - 1)):
        return f"{RANKS[rs[-1]]}-{'high' if rs[-1] == 12 else 'low'}"
    for n in (1, 2):
        if h - n >= 1 and len(distinct) >= h - n and distinct[h - n - 1] <= h + 3 - n:
            x = RANKS[max(distinct[h - n - 1], b)]
            return f"draw {n} to {'an' if x in '8A' else 'a'} {x}"
    if made:
        return f"{RANKS[rs[-1]]}-{'high' if rs[-1] == 12 else 'low'}, no draw"
    return "straight or flush, no draw" if len(distinct) == h else "pair or worse, no draw"


@pytest.mark.parametrize("ranks,suits,hand", [(13, 4, 5), (13, 4, 3), (8, 2, 3), (13, 4, 2), (13, 4, 1), (6, 4, 5)])
def test_vectorised_groups_follow_the_rules(ranks, suits, hand):
    deck = np.array([r * 4 + s for r in range(ranks) for s in range(suits)])
    rng = np.random.default_rng(ranks * 100 + hand)
    hands = np.array([rng.choice(deck, hand, replace=False) for _ in range(3000)])
    names = [g.label for g in all_groups(ranks, hand)]
    got = group_of_hands(hands, ranks)
    assert [names[g] for g in got] == [scalar_group(h.tolist(), ranks) for h in hands]


def test_a_class_groups_like_each_of_its_hands():
    classes = HandClasses(8, 2, 3)
    groups = class_groups(classes)
    hands = classes.deck[np.array(list(itertools.combinations(range(len(classes.deck)), 3)))]  # (560, 3)
    names = [g.label for g in all_groups(8, 3)]
    by_hand = [names[g] for g in group_of_hands(hands, 8)]
    by_class = [groups.groups[g].label for g in groups.ids[classes.classify(hands)[0]]]
    assert by_hand == by_class


@pytest.mark.parametrize("ranks,suits,hand", [(8, 2, 3), (13, 4, 2), (13, 1, 3), (6, 4, 5), (5, 4, 5)])
def test_shares_sum_to_one_and_no_group_is_empty(ranks, suits, hand):
    groups = class_groups(HandClasses(ranks, suits, hand))
    share = groups.sum(groups.share)
    assert abs(share.sum() - 1) < 1e-12 and (share > 0).all()


def test_full_deck_shares_agree_with_the_hand_ranks(full):
    """As tests/test_sampled_draw27.py::test_pat_low_frequencies: pat 9-low or better is 2.0% of
    hands, J-low or better 9.7%, and the pat groups are exactly the hands ranked at most the worst
    such low."""
    classes, groups = full
    assert [g.label for g in groups.groups] == [g.label for g in all_groups(13, 5)]  # all fifteen occur
    share = groups.sum(groups.share)
    assert abs(share.sum() - 1) < 1e-12
    ranks = lowball27_rank(classes.representative(np.arange(classes.n_classes)))
    labels = [g.label for g in groups.groups]
    for worst, best_groups, percent in [("9s8h7d6c4c", 3, 2.0), ("JsTh9d8c6c", 5, 9.7)]:
        assert labels[:best_groups][-1] == f"{worst[0]}-low"
        inside = ranks <= lowball27_rank(parse(worst)[None])[0]
        assert np.array_equal(inside, groups.ids < best_groups)
        by_ranks = classes.hands_per_class[inside].sum() / math.comb(52, 5)
        assert share[:best_groups].sum() == pytest.approx(by_ranks, abs=1e-14)
        assert round(100 * share[:best_groups].sum(), 1) == percent


def random_strategy(game, seed: int) -> ClassStrategy:
    kernel = sampled_kernel(game)
    rng = np.random.default_rng(seed)
    tables = {}
    for spec in kernel.strategy_tables:
        x = rng.random((kernel.n_classes, *spec.shape)) ** 3  # skewed
        tables[spec.name] = (x / x.sum(-1, keepdims=True)).astype(np.float32)
    return ClassStrategy(game, tables)


def test_group_frequencies_match_a_brute_force_over_every_hand():
    game = distcfr.load_game(SMALL)
    strategy = random_strategy(game, 1)
    kernel, t = strategy.kernel, strategy.tables
    report = group_report(strategy)
    hands = kernel.classes.deck[np.array(list(itertools.combinations(range(16), 3)))]  # every hand, equally likely
    classes, _ = kernel.classes.classify(hands)
    names = [g.label for g in all_groups(8, 3)]
    group = [names[g] for g in group_of_hands(hands, 8)]
    column = [min(bin(m).count("1"), 3) for m in range(8)]
    assert [g["group"] for g in report["groups"]] == sorted(set(group), key=names.index)
    for v, stack in enumerate(report["stacks"]):
        assert stack["push"] == pytest.approx(t["btn_push"][classes, v, 1].astype(float).mean(), abs=1e-12)
        assert stack["call"] == pytest.approx(t["bb_call"][classes, v, 1].astype(float).mean(), abs=1e-12)
        for g, row in zip(report["groups"], stack["groups"]):
            mine = [c for c, name in zip(classes.tolist(), group) if name == g["group"]]
            assert g["hands"] == pytest.approx(len(mine) / len(hands), abs=1e-12)
            push, call = t["btn_push"][mine, v, 1].astype(float), t["bb_call"][mine, v, 1].astype(float)
            assert row["push"] == pytest.approx(push.mean(), abs=1e-9)
            assert row["call"] == pytest.approx(call.mean(), abs=1e-9)
            bb = np.zeros(4)
            for c, w in zip(mine, call):
                for m in range(8):
                    bb[column[m]] += w * t["bb_draw"][c, v, m]
            assert row["bb_draws"] == pytest.approx(list(bb / call.sum()), abs=1e-6)
            for k in range(4):
                btn = np.zeros(4)
                for c, w in zip(mine, push):
                    for m in range(8):
                        btn[column[m]] += w * t["btn_draw"][c, k, v, m]
                assert row["btn_draws"][k] == pytest.approx(list(btn / push.sum()), abs=1e-6)
        counts = np.zeros(4)
        for c in classes:
            for m in range(8):
                counts[bin(m).count("1")] += t["bb_call"][c, v, 1] * t["bb_draw"][c, v, m]
        assert stack["bb_common_draw"] == int(np.argmax(counts))


def group_table(text: str) -> list[str]:
    """The lines of the printed group table: from its stack's two lines to the legend."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "hand group" in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("  hands: share of dealt hands"))
    return [line for line in lines[start - 3:end] if line]


def test_train_and_show_print_the_same_group_table(tmp_path, capsys):
    from distcfr.show import main as show
    from distcfr.train import main as train

    out = tmp_path / "s.msgpack"
    assert train(["--game", "draw27(ranks=8,suits=2,hand=3,stacks=10)", "--sampling", "--iterations", "5",
                  "--bracket-samples", "200", "--quiet", "--out", str(out)]) == 0
    trained = capsys.readouterr().out
    assert show([str(out)]) == 0
    shown = capsys.readouterr().out
    table = group_table(shown)
    assert table == group_table(trained)  # the file's float16 numbers, before and after saving
    assert table[0].startswith("  10BB  value ") and "button pushes" in table[0]
    assert table[1].startswith("        exploitability ") and " mBB) per hand, in [" in table[1]
    rows = [line.split()[0] for line in table[4:]]
    assert rows[:6] == ["4-low", "5-low", "6-low", "7-low", "8-low", "draw"]
    assert "BB draws" in table[2] and "BTN draws (BB drew" in table[2]

    assert show([str(out), "--format", "json", "--out", str(tmp_path / "s.json")]) == 0
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["mode"] == "sampled" and data["meta"]["iterations"] == 5 and len(data["evaluation"]) == 1
    groups = data["hand_groups"]
    assert sum(g["hands"] for g in groups["groups"]) == pytest.approx(1, abs=1e-12)
    assert groups["draw_columns"] == ["pat", "1", "2", "3+"] and groups["stacks"][0]["stack"] == "10BB"
    assert f"{groups['stacks'][0]['push']:.1%}" in table[0]
    evaluation = data["evaluation"][0]  # the exploitability line is the file's evaluation, in BB and mBB
    lo, hi = evaluation["exploitability_ci"]
    high = evaluation["exploitability"]
    assert f"{high:.4f} BB ({1000 * high:.1f} mBB) per hand, in [{lo:.4f}, {hi:.4f}] BB" in table[1]
    capsys.readouterr()
    assert show([str(out), "--format", "openspiel"]) == 2
    assert show([str(out), "--format", "json", "--hand", "7c3d2c"]) == 2


def test_train_prints_push_and_call_per_group_for_several_stacks(tmp_path, capsys):
    from distcfr.train import main as train

    assert train(["--game", "draw27(ranks=8,suits=2,hand=3,stacks=3:4:1)", "--sampling", "--iterations", "3",
                  "--batch", "2000", "--bracket-samples", "200", "--quiet", "--out", str(tmp_path / "m.msgpack")]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.strip().startswith("hand group"))
    assert lines[head].split()[-2:] == ["3BB", "4BB"]
    first = lines[head + 1].split()
    assert first[0] == "4-low" and all("/" in cell for cell in first[-2:])


def test_draws_of_a_group_that_almost_never_gets_there_are_blank():
    strategy = random_strategy(distcfr.load_game(SMALL), 2)
    t = strategy.tables
    members = class_groups(strategy.kernel.classes).ids == 0  # the first group's classes
    for block, p in (("bb_call", 1e-4), ("btn_push", 4e-4)):  # below PLAYED (0.0005), not 0
        t[block][members, :, 1] = p
        t[block][members, :, 0] = 1 - p
    report = group_report(strategy)
    first, second = report["stacks"][0]["groups"][:2]
    assert 0 < first["call"] < PLAYED and 0 < first["push"] < PLAYED
    assert first["bb_draws"] == [None] * 4 and first["btn_draws"] == [[None] * 4] * 4
    assert None not in second["bb_draws"] and None not in second["btn_draws"][0]
    line = next(line for line in render_stack(report, 0).splitlines()
                if line.startswith(f"    {report['groups'][0]['group']} "))
    assert line.split()[-8:] == ["-"] * 8 and line.split()[-10:-8] == ["0.0%", "0.0%"]

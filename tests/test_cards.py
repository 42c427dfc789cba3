import hashlib
from collections import Counter

import numpy as np
import pytest

from distcfr.cards import (
    CARD_KEYS,
    deck_description,
    format_cards,
    hand_keys,
    lowball27_rank,
    parse,
    rank_of_keys,
)
from distcfr.errors import BadParameter

# sha256 of the ranks ('<i2', dense 0..7461) of all 5-card hands, itertools.combinations order;
# pinned after the evaluator agreed with simple_key on every one of the 2,598,960 hands.
TABLE_DIGEST = "ad95139ba9a4ae944099bad5f4d398513800fa1fed3106e13dedf5284251908a"

# Deuce-to-seven hands per category (A-2-3-4-5 is no straight, so 4 fewer straight flushes and
# 1,020 fewer straights than in high poker, which become flushes and high-card hands).
CATEGORY_COUNTS = {
    "high card": 1_303_560,
    "pair": 1_098_240,
    "two pair": 123_552,
    "trips": 54_912,
    "straight": 9_180,
    "flush": 5_112,
    "full house": 3_744,
    "quads": 624,
    "straight flush": 36,
}
CATEGORIES = list(CATEGORY_COUNTS)


def rank(*texts):
    return lowball27_rank(np.array([parse(t) for t in texts]))


def simple_key(cards):
    """Independent, deliberately plain deuce-to-seven order: smaller tuple = better hand."""
    ranks = [c // 4 for c in cards]
    by_count = Counter(ranks)
    groups = sorted(by_count, key=lambda r: (by_count[r], r), reverse=True)
    shape = sorted(by_count.values(), reverse=True)
    flush = len(cards) == 5 and len({c % 4 for c in cards}) == 1
    straight = len(by_count) == 5 and max(ranks) - min(ranks) == 4
    if straight and flush:
        name = "straight flush"
    elif flush:
        name = "flush"
    elif straight:
        name = "straight"
    else:
        name = {
            (1, 1, 1, 1, 1): "high card",
            (3, 2): "full house",
            (2, 2, 1): "two pair",
            (3, 1, 1): "trips",
            (2, 1, 1, 1): "pair",
            (4, 1): "quads",
        }.get(tuple(shape))
        if name is None:  # fewer than 5 cards
            name = {
                1: "high card",
                2: "two pair" if shape[:2] == [2, 2] else "pair",
                3: "trips",
                4: "quads",
            }[shape[0]]
    return CATEGORIES.index(name), groups


def all_combinations(n: int, k: int) -> np.ndarray:
    """(C(n, k), k) int8, rows in itertools.combinations(range(n), k) order."""
    combos = np.arange(n, dtype=np.int8)[:, None]
    for _ in range(k - 1):
        last = combos[:, -1].astype(np.int64)
        reps = n - 1 - last
        rows = np.repeat(np.arange(len(combos)), reps)
        start = np.cumsum(reps) - reps
        nxt = last[rows] + 1 + np.arange(len(rows)) - np.repeat(start, reps)
        combos = np.column_stack([combos[rows], nxt.astype(np.int8)])
    return combos


def categorize(hands: np.ndarray) -> np.ndarray:
    """Vectorised category index (into CATEGORIES) of (n, 5) hands."""
    r = np.sort(hands // 4, axis=1)
    eq = r[:, 1:] == r[:, :-1]  # (n, 4) bool: adjacent equal ranks
    pairs = eq.sum(1)
    runs3 = (eq[:, 1:] & eq[:, :-1]).sum(1)  # 3 equal in a row
    runs4 = (eq[:, 2:] & eq[:, 1:-1] & eq[:, :-2]).sum(1)
    flush = (hands % 4 == hands[:, :1] % 4).all(1)
    straight = (pairs == 0) & (r[:, 4] - r[:, 0] == 4)
    cat = np.select(
        [
            straight & flush,
            runs4 == 1,
            (runs3 == 1) & (pairs == 3),
            flush,
            straight,
            runs3 == 1,
            pairs == 2,
            pairs == 1,
        ],
        [8, 7, 6, 5, 4, 3, 2, 1],
        0,
    )
    return cat


def test_parse_and_format():
    cards = parse("7c5d4h3s2c")
    assert cards.dtype == np.int64 and cards.tolist() == [20, 13, 10, 7, 0]
    assert format_cards(cards) == "7c5d4h3s2c"
    assert parse(" ah, 10S td\tKc ").tolist() == parse("AhTsTdKc").tolist()
    assert format_cards(parse("AhTsTdKc")) == "AhTsTdKc"
    everything = np.arange(52)
    assert parse(format_cards(everything)).tolist() == everything.tolist()
    assert parse("").tolist() == []


@pytest.mark.parametrize("text, bad", [("7c5x", "5x"), ("1c2d", "1c"), ("7c5", "5"), ("Zs", "Zs")])
def test_parse_rejects_bad_text(text, bad):
    with pytest.raises(BadParameter, match=repr(bad)):
        parse(text)


def test_format_rejects_bad_ids():
    with pytest.raises(BadParameter):
        format_cards([52])


def test_five_card_order():
    nut, r76, r8, wheel, k_high, straight6, flush, pair_a, pair_2 = rank(
        "7c5d4h3s2c",
        "7c6d4h3s2c",
        "8c5d4h3s2c",
        "Ac2d3h4s5c",
        "KcQdJhTs8c",
        "6c5d4h3s2c",
        "7c5c4c3c2c",
        "AcAdKhQsJc",
        "2c2d3h4s5c",
    )
    assert nut == 0 and nut < r76 < r8
    assert k_high < wheel < pair_2  # A-2-3-4-5 is ace high, better than any pair
    assert pair_2 < pair_a < straight6 < flush  # straight worse than any pair, flush than straight
    two_pair, trips, full, quads, sf = rank(
        "AcAdKhKsQc",
        "2c2d2h3s4c",
        "2c2d2h3s3c",
        "2c2d2h2s3c",
        "7c6c5c4c3c",
    )
    assert pair_a < two_pair < trips < straight6 < flush < full < quads < sf


def test_pair_and_kicker_order():
    a, b, c, d, e = rank("3c3d7h5s4c", "3c3d8h5s4c", "4c4d7h3s2c", "4c4d8h3s2c", "2c2dAhKsQc")
    assert a < b < c < d and e < a
    low_two, high_two, kicker = rank("3c3d2h2s4c", "4c4d2h2s3c", "4c4d2h2s5c")
    assert low_two < high_two < kicker
    fh1, fh2 = rank("3c3d3h2s2c", "2c2d2hAsAc")
    assert fh2 < fh1  # trips rank first


def test_equal_hands_rank_equal():
    assert len(set(rank("7c5d4h3s2c", "7d5h4s3c2d", "7h5c4c3c2c").tolist())) == 1
    assert len(set(rank("AcAdKhQsJc", "AhAsKcQdJd").tolist())) == 1
    assert rank("7c5c4c3c2c")[0] == rank("7d5d4d3d2d")[0]


def test_fewer_cards():
    assert rank("2c", "3d", "As").tolist() == [0, 1, 12]
    a, b, c, d = rank("3c2d", "AcKd", "2c2d", "AcAd")
    assert a == 0 and a < b < c < d
    a, b, c, d = rank("4c3c2c", "AcKdQh", "2c2dAh", "2c2d2h")
    assert a == 0 and a < b < c < d and rank("AcAdKh")[0] < d
    a, b, c, d, e = rank("5c4c3c2c", "AcKdQhJs", "2c2dAhKs", "2c2d3h3s", "AcAdAhKs")
    assert a == 0 and a < b < c < d < e < rank("2c2d2h2s")[0]
    assert rank("6c5c4c3c")[0] == rank("6c5d4h3s")[0]  # no flush or straight below 5 cards


def test_keys_are_additive():
    kept, drawn = parse("7c5d"), parse("4h3s2c")
    total = hand_keys(kept) + hand_keys(drawn)
    assert total == CARD_KEYS[parse("7c5d4h3s2c")].sum()
    assert rank_of_keys(total) == 0


@pytest.fixture(scope="module")
def five_card_table():
    hands = all_combinations(52, 5)  # (2598960, 5) int8
    return hands, lowball27_rank(hands), categorize(hands.astype(np.int64))


def test_agrees_with_simple_comparator(five_card_table):
    rng = np.random.default_rng(2024)
    for k, n_pairs in ((1, 2_000), (2, 5_000), (3, 5_000), (4, 5_000), (5, 30_000)):
        table = five_card_table[0] if k == 5 else all_combinations(52, k)
        hands = table[rng.integers(len(table), size=2 * n_pairs)]
        ranks = lowball27_rank(hands).reshape(-1, 2)
        keys = [simple_key(h) for h in hands.tolist()]
        want = [(a > b) - (a < b) for a, b in zip(keys[::2], keys[1::2], strict=True)]
        assert np.sign(ranks[:, 0] - ranks[:, 1]).tolist() == want
    # all pairs of a subset holding 40 hands of every category
    hands, _, cat = five_card_table
    subset = np.concatenate([hands[rng.choice(np.flatnonzero(cat == c), 40)] for c in range(9)])
    ranks = lowball27_rank(subset)
    keys = [simple_key(h) for h in subset.tolist()]
    want = np.array([[(a > b) - (a < b) for b in keys] for a in keys])
    assert (np.sign(ranks[:, None] - ranks[None, :]) == want).all()


def test_whole_five_card_table(five_card_table):
    hands, ranks, cat = five_card_table
    assert len(hands) == 2_598_960
    assert hands[:2].tolist() == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 5]]
    assert len(np.unique(ranks)) == 7462 and ranks.min() == 0 and ranks.max() == 7461
    counts = np.bincount(cat, minlength=9).tolist()
    assert dict(zip(CATEGORIES, counts, strict=True)) == CATEGORY_COUNTS
    lo = np.array([ranks[cat == c].min() for c in range(9)])
    hi = np.array([ranks[cat == c].max() for c in range(9)])
    assert lo[0] == 0 and (lo[1:] == hi[:-1] + 1).all()  # categories fill consecutive ranges
    assert hashlib.sha256(ranks.astype("<i2").tobytes()).hexdigest() == TABLE_DIGEST


def deck(ranks: int, suits: int) -> list[int]:
    return [r * 4 + s for r in range(ranks) for s in range(suits)]


@pytest.mark.parametrize("ranks, suits, expected", [
    (8, 2, "2-9 of clubs and diamonds (16 cards: 2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c 8d 9c 9d)"),
    (13, 1, "2-A of clubs (13 cards: 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac)"),
    (6, 3, "2-7 of clubs, diamonds and hearts (18 cards: 2c 2d 2h 3c 3d 3h 4c 4d 4h 5c 5d 5h 6c 6d 6h 7c 7d 7h)"),
    (13, 2, "2-A of clubs and diamonds (26 cards)"),  # past LISTED_CARDS: ranks and suits say it all
    (13, 4, "2-A of all four suits (52 cards)"),
    (1, 1, "2 of clubs (1 card: 2c)"),
])
def test_deck_description_of_every_draw27_shape(ranks, suits, expected):
    assert deck_description(deck(ranks, suits)) == expected
    assert deck_description(reversed(deck(ranks, suits))) == expected  # any order


def test_deck_description_lists_a_deck_that_is_no_rectangle():
    assert deck_description([0, 8, 49]) == "3 cards: 2c 4c Ad"
    assert deck_description([r * 4 for r in (0, 1, 3)]) == "3 cards: 2c 3c 5c"  # a gap in the ranks
    every_card_is_named = deck_description([c for c in range(52) if c != 51])
    assert every_card_is_named.startswith("51 cards: 2c 2d") and every_card_is_named.endswith("Ac Ad Ah")

import itertools

import numpy as np
import pytest

from distcfr.cards import lowball27_rank, parse
from distcfr.errors import BadParameter
from distcfr.games import draw_equity
from distcfr.games.draw_equity import showdown_equity


def make_deck(ranks: int, suits: int) -> np.ndarray:
    return np.array([r * 4 + s for r in range(ranks) for s in range(suits)])


def all_deals(deck: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    h1, h2 = [], []
    for a in itertools.combinations(deck.tolist(), h):
        for b in itertools.combinations([c for c in deck.tolist() if c not in a], h):
            h1.append(a)
            h2.append(b)
    return np.array(h1), np.array(h2)


def random_deals(deck: np.ndarray, h: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cards = np.array([rng.permutation(deck)[: 2 * h] for _ in range(n)])
    return np.sort(cards[:, :h], axis=1), np.sort(cards[:, h:], axis=1)


def brute_force(h1: list, h2: list, deck: list, m1: int, m2: int) -> float:
    """Literal game: P2 draws |m2| from the stub, then P1 draws |m1| from what is left."""
    stub = [c for c in deck if c not in h1 and c not in h2]
    keep1 = [c for j, c in enumerate(h1) if not m1 >> j & 1]
    keep2 = [c for j, c in enumerate(h2) if not m2 >> j & 1]
    finals1, finals2 = [], []
    for draw2 in itertools.combinations(stub, len(h2) - len(keep2)):
        rest = [c for c in stub if c not in draw2]
        for draw1 in itertools.combinations(rest, len(h1) - len(keep1)):
            finals1.append(keep1 + list(draw1))
            finals2.append(keep2 + list(draw2))
    r1, r2 = lowball27_rank(np.array(finals1)), lowball27_rank(np.array(finals2))
    return float(np.mean(np.sign(r2 - r1)))


def check_against_brute_force(h1s, h2s, deck, masks=None):
    equity = showdown_equity(h1s, h2s, deck)
    h = h1s.shape[1]
    pairs = masks or list(itertools.product(range(1 << h), repeat=2))
    for i in range(len(h1s)):
        for m1, m2 in pairs:
            want = brute_force(h1s[i].tolist(), h2s[i].tolist(), deck.tolist(), m1, m2)
            assert equity[m1, m2, i] == pytest.approx(want, abs=1e-12), (i, m1, m2)
    return equity


def test_one_card_all_deals():
    deck = make_deck(5, 1)
    h1, h2 = all_deals(deck, 1)
    equity = check_against_brute_force(h1, h2, deck)
    assert equity.shape == (2, 2, 20)


def test_two_cards_two_suits():
    deck = make_deck(4, 2)
    check_against_brute_force(*random_deals(deck, 2, 6, seed=1), deck)


def test_three_cards():
    deck = make_deck(6, 2)
    check_against_brute_force(*random_deals(deck, 3, 3, seed=2), deck)


def test_five_cards_with_straights_and_flushes():
    deck = make_deck(5, 4)  # 2..6 in four suits: every full redraw can make straights, flushes
    h1 = np.array([parse("2c3c4c5c6h"), parse("2c2d3h4s5c")])
    h2 = np.array([parse("2d3d4d5d6d"), parse("3c4c5d6h6s")])
    h1, h2 = np.sort(h1, axis=1), np.sort(h2, axis=1)
    masks = [(0, 0), (1, 0), (16, 1), (3, 24), (0, 31), (7, 28), (31, 31)]
    equity = check_against_brute_force(h1, h2, deck, masks)
    assert equity[31, 31].tolist() == [0.0, 0.0]  # both redraw everything from one stub


def test_laws():
    deck = make_deck(7, 2)
    h1, h2 = random_deals(deck, 2, 200, seed=3)
    equity = showdown_equity(h1, h2, deck)  # (4, 4, 200)
    assert np.abs(equity).max() <= 1
    r1, r2 = lowball27_rank(h1), lowball27_rank(h2)
    assert (equity[0, 0] == np.sign(r2 - r1)).all()  # no draws: the showdown itself
    # The pair of draws (D2, D1) is uniform over ordered disjoint pairs whichever player draws
    # first, so swapping the seats (and masks) negates the equity.
    assert np.allclose(showdown_equity(h2, h1, deck), -equity.transpose(1, 0, 2), atol=1e-12)
    assert (equity[3, 3] == 0).all()  # both redraw everything from the same stub


def test_chunks_agree(monkeypatch):
    deck = make_deck(7, 2)
    h1, h2 = random_deals(deck, 2, 50, seed=4)
    whole = showdown_equity(h1, h2, deck)
    monkeypatch.setattr(draw_equity, "_CHUNK_ELEMENTS", 3 * 1260)  # 3 deals a chunk
    assert np.array_equal(showdown_equity(h1, h2, deck), whole)


@pytest.mark.parametrize(
    "h1, h2, deck",
    [
        ([[1, 0]], [[2, 3]], make_deck(4, 2)),  # unsorted hand
        ([[0, 1]], [[1, 2]], make_deck(4, 2)),  # shared card
        ([[0, 1]], [[2, 40]], make_deck(4, 2)),  # card not in the deck
        ([[0, 4]], [[8, 12]], make_deck(5, 1)),  # stub too small for both to draw two
    ],
)
def test_bad_input(h1, h2, deck):
    with pytest.raises(BadParameter):
        showdown_equity(np.array(h1), np.array(h2), deck)

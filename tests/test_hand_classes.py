import itertools
import math

import numpy as np
import pytest

from distcfr.cards import parse
from distcfr.errors import BadParameter
from distcfr.games.hand_classes import HandClasses, combinations


@pytest.fixture(scope="module")
def full():
    return HandClasses(13, 4, 5)


def test_full_deck_has_134459_classes(full):
    assert full.n_classes == 134_459
    assert full.hands_per_class.sum() == math.comb(52, 5) == full.n_hands
    assert full.hands_per_class.max() == 24 and full.hands_per_class.min() == 4  # suit orbits: 4! / stabiliser


def test_combinations_match_itertools():
    for n, k in [(7, 3), (6, 1), (5, 5), (9, 4)]:
        assert combinations(n, k).tolist() == [list(c) for c in itertools.combinations(range(n), k)]


@pytest.mark.parametrize("ranks,suits,hand", [(6, 3, 3), (5, 4, 4), (8, 2, 3), (13, 1, 2), (4, 4, 5)])
def test_classify_is_a_bijection_onto_classes(ranks, suits, hand):
    hc = HandClasses(ranks, suits, hand)
    hands = hc.deck[combinations(len(hc.deck), hand)]  # every hand, ascending
    ids, canonical = hc.classify(hands)
    assert np.array_equal(np.bincount(ids, minlength=hc.n_classes), hc.hands_per_class)
    assert (hc.hands_per_class > 0).all() and hc.hands_per_class.sum() == len(hands)
    assert np.array_equal(np.sort(canonical, axis=1), hands)  # the same cards, reordered
    reps = hc.representative(np.arange(hc.n_classes))
    assert np.isin(reps, hc.deck).all() and (np.diff(reps, axis=1) > 0).all()
    rep_ids, rep_canonical = hc.classify(reps)
    assert np.array_equal(rep_ids, np.arange(hc.n_classes))
    assert np.array_equal(rep_canonical, reps)  # a canonical hand is its own canonical order


def permuted(hands: np.ndarray, perm) -> np.ndarray:
    return (hands >> 2) * 4 + np.asarray(perm)[hands & 3]


def test_suit_permutations_share_class_and_canonical_order(full):
    rng = np.random.default_rng(3)
    hands = np.argsort(rng.random((400, 52)), axis=1)[:, :5]
    ids, canonical = full.classify(hands)
    for perm in itertools.permutations(range(4)):
        order = rng.permutation(5)  # the order cards are given in does not matter either
        ids_p, canonical_p = full.classify(permuted(hands, perm)[:, order])
        assert np.array_equal(ids_p, ids)
        assert np.array_equal(canonical_p >> 2, canonical >> 2)  # same ranks position by position
        for a, b in zip(canonical, canonical_p):  # one suit permutation maps position i to position i
            mapping = dict(zip((a & 3).tolist(), (b & 3).tolist()))
            assert all(mapping[s] == t for s, t in zip((a & 3).tolist(), (b & 3).tolist()))
            assert len(set(mapping.values())) == len(mapping)


def test_non_equivalent_hands_differ(full):
    flush, rainbow = full.class_of("8c6c4c3c2c"), full.class_of("8s6h4d3c2c")
    assert flush != rainbow
    assert full.hands_per_class[flush] == 4
    ranks = full.representative(np.arange(full.n_classes)) >> 2  # (C, 5) ascending
    same_ranks = (ranks == [0, 1, 2, 4, 6]).all(1)
    assert full.hands_per_class[same_ranks].sum() == 4**5  # every suit assignment of 8-6-4-3-2, once


def test_labels_and_parsing(full):
    c = full.class_of("8s6h4d3c2c")
    assert full.label(c) == "8c6d4h3s2s"  # canonical suits: the largest rank mask becomes clubs
    assert full.class_of(full.label(c)) == c == full.class_of("2d 3d 4c 6s 8h")
    one_suit = HandClasses(13, 1, 3)
    assert one_suit.label(one_suit.class_of("K72")) == "K72"
    for bad in ["8s6h4d3c", "8s6h4d3c3c", "8s6h4d3c2x"]:
        with pytest.raises(BadParameter):
            full.class_of(bad)
    with pytest.raises(BadParameter):
        HandClasses(6, 2, 2).classify(parse("8c2c")[None])  # an 8 is not in a 6-rank deck


def test_a_hand_not_of_the_deck_is_told_what_the_deck_is():
    small = HandClasses(8, 2, 3)
    deck = "2-9 of clubs and diamonds (16 cards: 2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c 8d 9c 9d)"
    for bad in ["8s6h4d", "8c6d", "8c8c4d", "Tc6d4c", "8c6d4x"]:
        with pytest.raises(BadParameter, match="^--hand .* is not 3 different cards of this deck: ") as err:
            small.parse_hand(bad, "--hand")
        assert deck in str(err.value) and len(str(err.value).splitlines()) == 1
    assert small.parse_hand("8c 6d,4c").tolist() == parse("8c6d4c").tolist()
    assert HandClasses(13, 1, 3).parse_hand("K72").tolist() == parse("Kc7c2c").tolist()


def test_classify_speed(full):
    """At least a million hands a second (measured ~5M/s; a loose bound so a loaded machine passes)."""
    import time

    hands = np.random.default_rng(0).random((200_000, 52)).argpartition(5, axis=1)[:, :5]
    start = time.process_time()
    full.classify(hands)
    assert time.process_time() - start < 0.2

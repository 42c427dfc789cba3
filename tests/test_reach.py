"""distcfr.evaluate.reach: a sampled target reached, out of the bracket's reach, or what its rate says."""

import math

import numpy as np
import pytest

from distcfr.evaluate.reach import noise_bound, out_of_reach, power_fit, samples_to_resolve, target_summary
from distcfr.evaluate.sampled import Z95, Bracket

LABELS = ("3BB", "4BB")


def bracket(low, high, se=0.001, per_class=1000) -> Bracket:
    """A two-stack bracket with these estimates and one standard error everywhere."""
    low, high = np.array(low, float), np.array(high, float)
    return Bracket(low, np.full(2, se), high, np.full(2, se), np.zeros(2), np.full(2, se), per_class)


def test_the_interval_and_resolution_follow_the_estimates():
    b = bracket([0.001, 0.010], [0.004, 0.012])
    low, high = b.interval()
    assert low == pytest.approx([0.0, 0.010 - Z95 * 0.001]) and high == pytest.approx([0.004 + Z95 * 0.001,
                                                                                       0.012 + Z95 * 0.001])
    assert b.resolution() == pytest.approx([0.003 + Z95 * 0.001, 0.002 + Z95 * 0.001])
    assert high - b.resolution() == pytest.approx(b.low)  # the upper end: the lower estimate plus the resolution


def test_out_of_reach_once_the_interval_is_within_its_resolution_of_zero_and_resolves_no_better_than_the_target():
    converged = bracket([0.0005, 0.0005], [0.004, 0.004])  # interval from 0; resolves 0.0055
    assert out_of_reach(converged, 0.005) and not out_of_reach(converged, 0.006)
    shown = Bracket(np.full(2, 0.0003), np.full(2, 1e-5), np.full(2, 0.004), np.full(2, 0.001), np.zeros(2),
                    np.zeros(2), 1000)  # a response that kept the profile nearly everywhere: a small sure gain
    assert 0 < shown.interval()[0].min() < shown.resolution().min()
    assert out_of_reach(shown, 0.005) and not out_of_reach(shown, 0.006)
    early = bracket([0.05, 0.05], [0.06, 0.06])  # clearly exploitable: its resolution says little yet
    assert not out_of_reach(early, 0.005)
    lucky = bracket([0.0005, 0.0005], [-0.002, -0.002], se=0.003)  # an upper estimate below 0 by noise
    assert lucky.interval()[1].max() < 0.005 < lucky.resolution().max() and not out_of_reach(lucky, 0.005)


def test_a_bracket_is_noise_bound_only_where_no_stack_is_shown_exploitable():
    assert noise_bound(bracket([0.0005, 0.0005], [0.004, 0.004]))  # both intervals from 0, within the resolution
    assert not noise_bound(bracket([0.05, 0.0005], [0.06, 0.004]))  # the first stack is shown to lose 0.047
    assert not noise_bound(bracket([0.05, 0.05], [0.06, 0.06]))


def test_the_samples_to_resolve_a_target_halve_the_resolution_there():
    b = bracket([0.0, 0.0], [0.004, 0.0], per_class=1000)
    needed = samples_to_resolve(b, 0.002)
    resolution = b.resolution().max()
    assert resolution * math.sqrt(b.per_class / needed) == pytest.approx(0.001, rel=1e-3)  # 1/sqrt(samples)


def test_a_power_law_is_recovered_and_a_flat_or_short_history_gives_none():
    its = [10, 20, 40, 80, 160]
    exponent, factor = power_fit(its, [0.5 * i**-0.5 for i in its])
    assert exponent == pytest.approx(-0.5) and factor == pytest.approx(0.5)
    assert power_fit(its[:2], [0.1, 0.05]) is None
    assert power_fit(its, [0.01 * i for i in its]) is None  # rising: no rate toward a target


def test_a_target_summary_says_reached_or_out_of_reach():
    final = bracket([0.001, 0.0004], [0.003, 0.0005])
    reached = target_summary(0.01, final, LABELS, [], 160, 0.5)
    assert reached["reached"] and reached["upper_end"] == final.interval()[1].max() and reached["worst_stack"] == "3BB"
    lost = target_summary(0.001, final, LABELS, [], 160, 0.5)
    assert lost["out_of_reach"] and not lost["reached"]
    assert lost["samples_to_resolve"] == samples_to_resolve(final, 0.001)


def test_a_target_in_reach_gets_the_iterations_its_rate_needs_once_it_has_three_evaluations():
    final = bracket([0.02, 0.001], [0.022, 0.0015])  # 3BB still clearly exploitable
    floor = final.resolution()[0]
    its = [10, 20, 40, 80, 160]
    history = [{"iteration": i, "upper": floor + 0.5 * i**-0.5} for i in its]  # less the floor: a power law
    target = floor + 0.5 * 2500**-0.5  # reached at iteration 2,500 at that rate
    left = target_summary(target, final, LABELS, history, 160, 0.5)
    assert not left["reached"] and not left["out_of_reach"] and left["samples_to_resolve"] is None
    assert left["rate"] == pytest.approx(-0.5) and abs(left["iterations_needed"] - 2500) <= 1
    assert left["seconds_needed"] == pytest.approx((2500 - 160) * 0.5, rel=1e-6)
    short = target_summary(target, final, LABELS, history[:2], 20, 0.5)
    assert short["rate"] is None and short["iterations_needed"] is None  # cannot be estimated yet

"""distcfr.present.run_summary: a sampled run's one line on its target, in each case."""

import re

from distcfr.engine.sampled_bracket import BRACKET_CHUNK
from distcfr.present.run_summary import target_line

BASE = {"target": 0.01, "upper_end": 0.0312, "worst_stack": "4BB", "reached": False, "bracket_per_class": 1000,
        "resolution": 0.016, "evaluations": 5, "out_of_reach": False, "samples_to_resolve": None, "rate": None,
        "iterations_needed": None, "seconds_needed": None, "gave_up": False, "eval_seconds": 2.0,
        "wall_seconds": 40.0}


def line(**changes) -> str:
    text = target_line({**BASE, **changes}, "BB")
    assert "\n" not in text
    return text


def test_a_reached_target_says_its_upper_end_and_what_the_brackets_cost():
    text = line(reached=True, upper_end=0.0091)
    assert text.startswith("  target 0.01 BB per hand reached: the bracket's upper end is 0.00910 BB (9.10 mBB) at 4BB")
    assert "its 5 evaluation(s) took 2.0 s (5% of the run)" in text


def test_a_run_out_of_budget_says_the_time_its_rate_needs_or_that_it_cannot_yet():
    text = line(rate=-0.52, iterations_needed=12_400, seconds_needed=5 * 3600)
    assert "not reached in the run's budget: the bracket's upper end is 0.0312 BB (31.2 mBB) at 4BB" in text
    assert "iterations^-0.52" in text and "about 12,400 iterations in all, ~5.0 hours more" in text
    assert "cannot be estimated yet (5 evaluation(s); a rate needs 3" in line()
    assert "more than 2,147,483,647 iterations" in line(rate=-0.01)


def test_a_target_below_the_brackets_resolution_says_the_samples_that_would_resolve_it():
    text = line(out_of_reach=True, samples_to_resolve=10_240)
    assert "out of reach of the bracket at --bracket-samples 1,000, which resolves 0.0160 BB" in text
    assert text.endswith("--bracket-samples 10,240 would resolve it")
    beyond = line(out_of_reach=True, samples_to_resolve=4 * BRACKET_CHUNK, gave_up=True)
    assert f"beyond the most allowed ({BRACKET_CHUNK:,}" in beyond
    assert beyond.endswith("the run stopped there (no --iterations or --minutes)")
    # not judged out of reach yet (the strategy is still clearly exploitable) but not resolved at these samples
    early = line(samples_to_resolve=10_240)
    assert "cannot be estimated yet: the strategy is still clearly exploitable" in early
    assert re.search(r"resolves only 0\.0160 BB at --bracket-samples 1,000 \(--bracket-samples 10,240", early)

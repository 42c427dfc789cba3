"""distcfr.solve.run_options: a run's options checked before it starts, usable without the command line."""

from types import SimpleNamespace

import pytest

from distcfr.errors import BadParameter
from distcfr.games.registry import load_game
from distcfr.solve.run_options import SAMPLED_ONLY, refuse_unused, rule_params, what_to_run


def options(tmp_path, **given):
    base = dict(resume=None, checkpoint=None, no_checkpoint=False, game=None, algorithm=None, updates=None,
                shards=None, sampling=False, refine_break_even=None, out=str(tmp_path / "s.msgpack"),
                summary_json=None, plot=None, **{name: None for name in SAMPLED_ONLY})
    return SimpleNamespace(**{**base, **given})


def test_what_to_run_reads_plain_options_and_refuses_an_option_the_mode_cannot_use(tmp_path):
    said = []
    checkpoint, game, sampled = what_to_run(options(tmp_path), said.append, "kuhn")
    assert checkpoint is None and game.spec == load_game("kuhn").spec and not sampled and not said
    with pytest.raises(BadParameter, match="--seed is a sampled solve's option"):
        what_to_run(options(tmp_path, seed=3), said.append, "kuhn")
    game = load_game("draw27(ranks=6,suits=2,hand=2,stacks=2)")
    with pytest.raises(BadParameter, match="--refine-break-even bisects exact single-stack solves"):
        refuse_unused(options(tmp_path, refine_break_even=0.1), game, sampled=True)


def test_every_rule_parameter_names_its_rules_and_defaults():
    params = rule_params()
    assert params and all(owners and all(isinstance(default, float | int) for _, default, _ in owners)
                          for owners in params.values())

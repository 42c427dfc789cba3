"""The update-rule registry: each rule's schedule, parameters, and what adding a rule takes."""

import numpy as np
import pytest

import distcfr
from distcfr.engine import rules
from distcfr.engine.rules import RULES, Discount, RuleKind, make_rule, regret_matching, rule_from_fields, update


@pytest.mark.parametrize("name, t, expected", [
    ("cfr", 5, (1.0, 1.0, 1.0)),
    ("cfr+", 3, (1.0, 1.0, 2 / 3)),
    ("lcfr", 4, (3 / 4, 3 / 4, 3 / 4)),
    ("lcfr-cubic", 4, (3 / 4, 3 / 4, 27 / 64)),
    ("lcfr-square", 4, (3 / 4, 3 / 4, 9 / 16)),
    ("lcfr-flat", 4, (3 / 4, 3 / 4, 9 / 16)),  # lcfr-square up to LINEAR_UNTIL
    ("lcfr-flat", rules.LINEAR_UNTIL + 1, (1.0, 1.0, 1.0)),  # then nothing discounted: every iteration alike
    ("pcfr+", 3, (1.0, 1.0, 4 / 9)),
    ("dcfr", 2, (0.5, 0.5, 0.25)),  # x = 1: 1/(1+1) for both signs, (1/2)^2
    ("dcfr", 5, (8 / 9, 0.5, 16 / 25)),  # x = 4: 4^1.5 = 8, 8/9; 4^0 = 1, 1/2; (4/5)^2
])
def test_schedules(name, t, expected):
    d = make_rule(name).discount(t)
    assert (d.regret_pos, d.regret_neg, d.strategy) == pytest.approx(expected, abs=1e-15)


def test_floor_and_discount_are_applied_in_place():
    regrets, sums = np.array([[2.0, -2.0]]), np.array([[1.0, 1.0]])
    update(make_rule("cfr+"), make_rule("cfr+").discount(2), regrets, sums, np.array([[1.0, -1.0]]),
           np.array([[0.5, 0.5]]))
    assert regrets.tolist() == [[3.0, 0.0]] and sums.tolist() == [[1.0, 1.0]]  # floored; sums * 1/2 + 1/2
    regrets = np.array([[2.0, -2.0]])
    dcfr = make_rule("dcfr", alpha=1.0, beta=1.0)
    update(dcfr, dcfr.discount(3), regrets, sums, np.zeros((1, 2)), np.zeros((1, 2)))
    assert regrets.tolist() == [[2.0 * 2 / 3, -2.0 * 2 / 3]]


@pytest.mark.parametrize("name", list(RULES))
def test_fields_round_trip(name):
    rule = make_rule(name)
    assert rule_from_fields(rule.fields()) == rule
    assert set(rule.fields()) == {"name", *RULES[name].params}


def test_parameters_are_checked():
    assert dict(make_rule("dcfr", gamma=3.0).params) == {"alpha": 1.5, "beta": 0.0, "gamma": 3.0}
    for bad in ({"alpha": -1.0}, {"beta": float("nan")}, {"gamma": True}):
        with pytest.raises(distcfr.BadParameter, match="must be a finite number"):
            make_rule("dcfr", **bad)
    with pytest.raises(distcfr.BadParameter, match="only apply to dcfr"):
        make_rule("lcfr", alpha=1.0)
    with pytest.raises(distcfr.BadParameter, match="not parameters of any rule"):
        make_rule("dcfr", delta=1.0)
    with pytest.raises(distcfr.BadParameter, match="unknown algorithm"):
        make_rule("cfr++")
    with pytest.raises(distcfr.BadParameter):
        rule_from_fields({"alpha": 1.0})


def test_a_new_rule_is_one_registry_entry(monkeypatch, tmp_path):
    # "half": regrets and sums halved every iteration; solver, CLI and checkpoints all pick it up
    half = RuleKind("half", "test rule", lambda t, p: Discount(t, p["k"], p["k"], p["k"]), params={"k": 0.5},
                    param_help={"k": "discount"})
    monkeypatch.setitem(RULES, "half", half)
    from distcfr.train import main

    ckpt, out = tmp_path / "h.ckpt", tmp_path / "h.msgpack"
    assert main(["--game", "kuhn", "--algorithm", "half", "--k", "0.25", "--iterations", "20", "--quiet",
                 "--checkpoint", str(ckpt), "--out", str(out), "--no-tables"]) == 0
    saved = distcfr.Checkpoint.load(ckpt)
    assert saved.rule.name == "half" and dict(saved.rule.params) == {"k": 0.25}
    direct = distcfr.Solver(distcfr.load_game("kuhn"), algorithm="half", k=0.25).solve(iterations=20)
    assert distcfr.load_strategy(out).probs.tobytes() == direct.probs.tobytes()
    assert rules.ALGORITHMS != tuple(RULES)  # ALGORITHMS is the import-time snapshot; the CLI reads RULES


def test_sampled_rows_weigh_regrets_and_sums_apart():
    # lcfr-cubic at t = 2: R += 2 (Q - sigma.Q), S += 2^3 reach sigma (linear CFR: both times 2); lcfr-flat
    # past LINEAR_UNTIL weighs every iteration as that one
    from distcfr.engine.rules import update_sampled_rows

    sigma, q, reach = np.array([[0.25, 0.75]]), np.array([[4.0, 0.0]]), np.array([[3.0]])
    late, cap = 3 * rules.LINEAR_UNTIL, float(rules.LINEAR_UNTIL)
    for name, t, weight, sum_weight in (("lcfr", 2, 2.0, 2.0), ("lcfr-square", 2, 2.0, 4.0),
                                        ("lcfr-cubic", 2, 2.0, 8.0), ("lcfr-flat", 2, 2.0, 4.0),
                                        ("lcfr-flat", late, cap, cap ** 2), ("lcfr-square", late, late, late ** 2)):
        regrets, sums = np.array([[1.0, 1.0]]), np.zeros((1, 2))
        update_sampled_rows(make_rule(name), t, regrets, sums, sigma, q, reach)
        assert regrets.tolist() == [[1.0 + weight * 3.0, 1.0 - weight * 1.0]]  # sigma.Q = 1
        assert sums.tolist() == [[sum_weight * 3 * 0.25, sum_weight * 3 * 0.75]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_compiled_sampled_update_gives_the_bits_of_the_plain_formula(dtype):
    """The weighted update of sampled rows (one compiled pass) is bit for bit the formula
    R += w (Q - sigma.Q), S += (reach v) sigma in the tables' precision, sigma.Q term after term;
    rows (G, H+1, B, M) with their reach (G, 1, B, 1) spread over H+1, also on rows that are not
    contiguous (a gathered copy written back)."""
    from distcfr.engine.rules import sum_last, update_sampled_rows

    rng = np.random.default_rng(3)
    shape = (40, 3, 5, 8)
    regrets, sums = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    sigma = regret_matching(rng.standard_normal(shape).astype(np.float32))
    q = rng.standard_normal(shape).astype(np.float32)
    reach = rng.random((40, 1, 5, 1)).astype(np.float32)
    rule, t = make_rule("lcfr-square"), 7
    w, v = dtype(7), dtype(49)
    s, qq = sigma.astype(dtype), q.astype(dtype)
    want_r = regrets + (qq - sum_last(s * qq)[..., None]) * w
    want_s = sums + (reach.astype(dtype) * v) * s
    every_other = np.s_[::2]  # a strided view: the update works in a copy and writes it back
    got_r, got_s = regrets.copy(), sums.copy()
    update_sampled_rows(rule, t, got_r[every_other], got_s[every_other], sigma[every_other], q[every_other],
                        reach[every_other])
    update_sampled_rows(rule, t, got_r[1::2], got_s[1::2], sigma[1::2], q[1::2], reach[1::2])
    assert got_r.tobytes() == want_r.tobytes() and got_s.tobytes() == want_s.tobytes()


@pytest.mark.parametrize("name", [name for name, kind in RULES.items() if kind.sampled_weight is not None])
def test_a_sampled_rules_weighted_form_is_its_discounted_form(name):
    # the exact solver discounts, the sampled one weighs: the two forms are one rule where the strategy
    # sums of an iteration, discounted to the end, weigh v_t / v_T (the regrets' discounts w_(t-1) / w_t)
    rule = make_rule(name)
    regret_w, sum_w = rule.kind.sampled_weight, rule.kind.sampled_sum_weight or rule.kind.sampled_weight
    for t in (2, 7, rules.LINEAR_UNTIL, rules.LINEAR_UNTIL + 1, 2 * rules.LINEAR_UNTIL):
        d = rule.discount(t)
        assert d.regret_pos == d.regret_neg == pytest.approx(regret_w(t - 1) / regret_w(t), rel=1e-12)
        assert d.strategy == pytest.approx(sum_w(t - 1) / sum_w(t), rel=1e-12)


@pytest.mark.parametrize("actions", [2, 8, 32])
def test_sampled_regret_matching_in_place_gives_the_bits_of_the_plain_formula(actions):
    """Regret matching of a sampled table (uniform where no regret is positive), computed in the
    output array without temporaries, is bit for bit the textbook formula's with the positive
    total summed term after term (+0.0 where a regret is not positive), zeros, -0.0 and rows with
    no positive regret included."""
    rng = np.random.default_rng(actions)
    regrets = rng.standard_normal((500, 3, actions), dtype=np.float32)
    regrets[rng.random(regrets.shape) < 0.4] = 0
    regrets[rng.random(regrets.shape) < 0.1] = -0.0
    regrets[:50] = -np.abs(regrets[:50])  # rows with nothing positive
    positive = np.where(regrets > 0, regrets, np.float32(0))
    total = rules.sum_last(positive)[..., None]  # term after term
    want = np.divide(positive, total, out=np.full_like(positive, 1 / actions), where=total > 0)
    out = np.full_like(regrets, np.nan)
    assert regret_matching(regrets, out=out) is out
    assert out.tobytes() == want.tobytes() and regret_matching(regrets).tobytes() == want.tobytes()
    assert np.allclose(out.sum(-1), 1) and (out[:50] == 1 / actions).all()

"""The vectorised engine against an independent per-history reference CFR.

``reference_cfr.py`` (beside this file) is a plain-Python recursion written from
the rules, not from the engine. Three groups of tests:

1. the reference itself: golden values (OpenSpiel's NashConv of the uniform and
   "first action" policies, Kuhn's value -1/18), one hand-derived CFR step, and
   OpenSpiel's own solvers and exploitability where they are installed;
2. the engine's current and average strategies agree with the reference after
   a few iterations of every update rule, on Kuhn and Leduc, with simultaneous
   and alternating updates: to 1e-12, or 1e-10 after several Leduc iterations
   (rounding, see ``_strategy_tol``);
3. the engine's exploitability and best-response values of its average
   strategy agree with the reference's exact best response to 1e-12.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


def _load_reference():
    # Loaded by path, so it works whatever pytest's import mode and whether or
    # not tests/ is a package.
    name = "reference_cfr"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ref = _load_reference()

TOL = 1e-12


def _strategy_tol(game: str, iterations: int) -> float:
    """Tolerance on strategies after ``iterations`` iterations.

    1e-12 on Kuhn and for Leduc up to 4 iterations (every rule, both update
    orders). After 7 Leduc iterations the bound is 1e-10: the engine forms
    regrets as Q(a) - sum_b sigma(b) Q(b) from summed
    action values, which cancels, and regret matching divides those rounding
    errors by an infoset's total positive regret (0.04 at worst here). Checked
    against exact rational arithmetic: after 6 pcfr+ simultaneous Leduc
    iterations the engine's regrets are 3.8e-13 off (the reference's 2e-14),
    and its current strategy 3.9e-12 off after 7. A wrong rule is off by 1e-3
    or more, so 1e-10 still catches any logic error.
    """
    return TOL if game == "kuhn" or iterations <= 4 else 1e-10


GAMES = ("kuhn", "leduc")
DCFR_CUSTOM = {"alpha": 2.0, "beta": 0.5, "gamma": 3.0}


def _max_abs_diff(a: dict[str, list[float]], b: dict[str, list[float]]) -> tuple[float, str]:
    """Largest |a - b| over shared labels and actions, and the label where it occurs."""
    worst, where = 0.0, ""
    for lab, probs in a.items():
        assert len(probs) == len(b[lab]), f"{lab}: {len(probs)} vs {len(b[lab])} actions"
        d = max(abs(x - y) for x, y in zip(probs, b[lab], strict=True))
        if d > worst:
            worst, where = d, lab
    return worst, where


# ----------------------------------------------------------- 1. the reference itself


@pytest.mark.parametrize(
    ("game", "strategy", "nash_conv"),
    [
        # OpenSpiel python/algorithms/exploitability_test.py golden values.
        ("kuhn", "uniform", 11 / 12),
        ("leduc", "uniform", 4.747222222222222),
        ("kuhn", "first", 2.0),
        ("leduc", "first", 2.0),
    ],
)
def test_reference_golden_nash_conv(game, strategy, nash_conv):
    make = ref.uniform_strategy if strategy == "uniform" else ref.first_action_strategy
    br0, br1, expl = ref.exploitability(game, make(game))
    assert br0 + br1 == pytest.approx(nash_conv, abs=1e-12)
    assert expl == pytest.approx(nash_conv / 2, abs=1e-12)


def test_reference_infoset_counts_and_labels():
    kuhn, leduc = ref.infosets("kuhn"), ref.infosets("leduc")
    assert len(kuhn) == 12
    # Leduc by rank: round 1 has 3 ranks x 6 histories; round 2 has 5 round-1
    # endings x 6 round-2 histories x 9 (own rank, board rank) pairs.
    assert len(leduc) == 3 * 6 + 5 * 6 * 9 == 288
    assert kuhn["K|"] == (0, ("check", "bet"))
    assert kuhn["J|pb"] == (0, ("fold", "call"))
    assert kuhn["Q|b"] == (1, ("fold", "call"))
    for lab in ("K|", "Q|rr", "J|c", "K/Q|rc.", "J/J|cc.r", "Q/K|crc.rr"):
        assert lab in leduc, lab
    assert leduc["K|"] == (0, ("check", "bet"))
    assert leduc["Q|rr"] == (0, ("fold", "call"))  # two raises: no third
    assert leduc["J/J|cc.r"] == (1, ("fold", "call", "raise"))


def test_reference_kuhn_first_step_by_hand():
    # Iteration 1 of vanilla CFR, everyone uniform. P1 holding K (deals KJ, KQ,
    # 1/6 each): bet wins 1 or 2 (value 1.5); check wins 1 after a check and,
    # after a bet, -1 or 2 (value 0.75). u = 1.125, so r = (1/3)(0.75 - 1.125,
    # 1.5 - 1.125) = (-1/8, 1/8) and s = (1/3)(1/2, 1/2).
    solver = ref.ReferenceSolver("kuhn", "cfr", "simultaneous")
    solver.step()
    assert solver.regrets["K|"] == pytest.approx([-0.125, 0.125], abs=1e-15)
    assert solver.strategy_sum["K|"] == pytest.approx([1 / 6, 1 / 6], abs=1e-15)
    assert solver.current_strategy()["K|"] == [0.0, 1.0]


def test_reference_cfr_plus_kuhn_value():
    solver = ref.ReferenceSolver("kuhn", "cfr+", "alternating")
    for _ in range(2000):
        solver.step()
    avg = solver.average_strategy()
    assert ref.expected_value("kuhn", avg) == pytest.approx(-1 / 18, abs=1e-4)
    assert ref.exploitability("kuhn", avg)[2] < 1e-3


@pytest.mark.parametrize("game", GAMES)
def test_reference_value_symmetry(game):
    # Against a fixed strategy, player 1's value plus player 2's is zero, and
    # each best response is worth at least the on-policy value.
    solver = ref.ReferenceSolver(game, "dcfr", "alternating")
    for _ in range(3):
        solver.step()
    avg = solver.average_strategy()
    v = ref.expected_value(game, avg)
    br0, br1, expl = ref.exploitability(game, avg)
    assert br0 >= v - 1e-12 and br1 >= -v - 1e-12 and expl >= 0


# OpenSpiel's Python solvers implement cfr (alternating or simultaneous), cfr+,
# lcfr and dcfr with the same update rules (its discount after the update is
# the same as ours before it), so they are a third, outside path.
_OPENSPIEL_CASES = [
    ("cfr", "alternating"),
    ("cfr", "simultaneous"),
    ("cfr+", "alternating"),
    ("lcfr", "alternating"),
    ("dcfr", "alternating"),
]


def _openspiel_pairs(pyspiel, game_name):
    """(OpenSpiel game, [(decision state, our label)] over its whole tree)."""
    game = pyspiel.load_game({"kuhn": "kuhn_poker", "leduc": "leduc_poker"}[game_name])
    ours = ref.load(game_name)
    codes = "pb" if game_name == "kuhn" else "fcr"  # OpenSpiel action ids
    pairs = []

    def walk(state, cards, h):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, _ in state.chance_outcomes():
                walk(state.child(a), cards + (a,), h)
            return
        deal = cards + (0,) * (3 - len(cards)) if game_name == "leduc" else cards
        pairs.append((state, ours.label(deal, h)))
        for a in state.legal_actions():
            walk(state.child(a), cards, ours.child(h, codes[a]))

    walk(game.new_initial_state(), (), "")
    return game, pairs


def _openspiel_strategy(policy, pairs):
    out = {}
    for state, lab in pairs:
        probs = policy.action_probabilities(state)
        out.setdefault(lab, [probs[a] for a in state.legal_actions()])
    return out


@pytest.mark.parametrize(("game_name", "iterations"), [("kuhn", 10), ("leduc", 2)])
def test_reference_matches_openspiel(game_name, iterations):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr, discounted_cfr
    from open_spiel.python.algorithms import exploitability as os_expl

    game, pairs = _openspiel_pairs(pyspiel, game_name)
    make = {
        ("cfr", "alternating"): lambda: cfr.CFRSolver(game),
        ("cfr", "simultaneous"): lambda: cfr._CFRSolver(
            game, alternating_updates=False, linear_averaging=False, regret_matching_plus=False
        ),
        ("cfr+", "alternating"): lambda: cfr.CFRPlusSolver(game),
        ("lcfr", "alternating"): lambda: discounted_cfr.LCFRSolver(game),
        ("dcfr", "alternating"): lambda: discounted_cfr.DCFRSolver(game),
    }
    cases = _OPENSPIEL_CASES if game_name == "kuhn" else [("cfr", "simultaneous"), ("dcfr", "alternating")]
    for algorithm, updates in cases:
        theirs = make[(algorithm, updates)]()
        ours = ref.ReferenceSolver(game_name, algorithm, updates)
        for _ in range(iterations):
            theirs.evaluate_and_update_policy()
            ours.step()
        for what, pol, mine in (
            ("current", theirs.current_policy(), ours.current_strategy()),
            ("average", theirs.average_policy(), ours.average_strategy()),
        ):
            d, lab = _max_abs_diff(mine, _openspiel_strategy(pol, pairs))
            assert d < TOL, f"{game_name} {algorithm} {updates} {what}: |diff| {d:.3g} at {lab}"
        br0, br1, _ = ref.exploitability(game_name, ours.average_strategy())
        nash_conv = os_expl.nash_conv(game, theirs.average_policy())
        assert br0 + br1 == pytest.approx(nash_conv, abs=TOL)


# ------------------------------------------------------ 2. and 3. engine agreement


@pytest.fixture(scope="module")
def engine():
    import distcfr  # the engine: an import error fails these tests, never skips them

    return distcfr


@pytest.fixture(scope="module")
def engine_games(engine):
    return {name: engine.load_game(name) for name in GAMES}


def _engine_strategy(strategy) -> dict[str, list[float]]:
    return {lab: list(strategy.action_probs(lab).values()) for lab in strategy.labels()}


def _params(algorithm: str, custom: bool) -> dict[str, float]:
    if algorithm != "dcfr":
        return {}
    return dict(DCFR_CUSTOM) if custom else {"alpha": 1.5, "beta": 0.0, "gamma": 2.0}


_AGREEMENT_CASES = [
    pytest.param(game, algorithm, updates, iterations, False, id=f"{game}-{algorithm}-{updates}-{iterations}")
    for game in GAMES
    for algorithm in ref.ALGORITHMS
    for updates in ref.UPDATES
    for iterations in (1, 4, 7)
] + [
    pytest.param(game, "dcfr", updates, 7, True, id=f"{game}-dcfr(2,0.5,3)-{updates}-7")
    for game in GAMES
    for updates in ref.UPDATES
]


@pytest.mark.parametrize(("game", "algorithm", "updates", "iterations", "custom"), _AGREEMENT_CASES)
def test_engine_agrees_with_reference(engine, engine_games, game, algorithm, updates, iterations, custom):
    params = _params(algorithm, custom)
    solver = engine.Solver(engine_games[game], algorithm=algorithm, updates=updates, **params)
    for _ in range(iterations):
        solver.step()
    cur = _engine_strategy(solver.current_strategy())
    avg_obj = solver.average_strategy()
    avg = _engine_strategy(avg_obj)
    ref_cur, ref_avg = ref.run_reference(game, algorithm, updates, iterations, **params)

    case = f"{game} {algorithm}{params or ''} {updates} after {iterations}"
    missing, extra = sorted(set(ref_cur) - set(cur)), sorted(set(cur) - set(ref_cur))
    assert not missing and not extra, f"{case}: labels missing {missing[:5]}, unexpected {extra[:5]}"
    assert set(avg) == set(cur), f"{case}: current and average label sets differ"

    tol = _strategy_tol(game, iterations)
    d, lab = _max_abs_diff(ref_cur, cur)
    assert d <= tol, f"{case}: current strategy |diff| {d:.3g} at {lab}: {cur[lab]} vs {ref_cur[lab]}"
    d, lab = _max_abs_diff(ref_avg, avg)
    assert d <= tol, f"{case}: average strategy |diff| {d:.3g} at {lab}: {avg[lab]} vs {ref_avg[lab]}"

    # 3. exact best response to the engine's own average strategy
    br0, br1, expl = ref.exploitability(game, avg)
    e_br0, e_br1 = avg_obj.best_response_values()
    assert e_br0 == pytest.approx(br0, abs=TOL), f"{case}: br value of player 1"
    assert e_br1 == pytest.approx(br1, abs=TOL), f"{case}: br value of player 2"
    assert avg_obj.exploitability() == pytest.approx(expl, abs=TOL), f"{case}: exploitability"


@pytest.mark.parametrize("game", GAMES)
def test_engine_action_labels(engine, engine_games, game):
    solver = engine.Solver(engine_games[game], algorithm="cfr", updates="alternating")
    strategy = solver.average_strategy()
    for lab, (_, names) in ref.infosets(game).items():
        assert tuple(strategy.action_probs(lab)) == names, lab


@pytest.mark.parametrize("game", GAMES)
def test_engine_uniform_golden_nash_conv(engine, engine_games, game):
    # Before any iteration the average strategy is uniform.
    strategy = engine.Solver(engine_games[game], algorithm="cfr", updates="alternating").average_strategy()
    br0, br1 = strategy.best_response_values()
    assert br0 + br1 == pytest.approx({"kuhn": 11 / 12, "leduc": 4.747222222222222}[game], abs=TOL)

"""Update rules of the CFR family, as a registry. Rules differ only in how the accumulated
regrets and strategy sums are discounted each iteration, whether regrets are floored at
zero, and whether the next strategy uses a prediction. At iteration t (1-based), for one
player:

1. R <- R * (pos_t where R > 0 else neg_t) + r_t        (r_t: instantaneous regret)
2. if floor: R <- max(R, 0)
3. S <- S * strat_t + s_t                              (s_t: reach-weighted strategy)
4. next strategy = regret matching on R (+ r_t for a predictive rule)

Adding a rule is one ``RuleKind`` entry in ``RULES`` (and its test); the CLI's choices and
help, checkpoints and both solvers read the registry. Under chance sampling a rule is applied to
the rows a batch touched (:func:`update_sampled_rows`): in weighted form where the registry gives
one (``sampled_weight``: lcfr, lcfr-square, lcfr-cubic, lcfr-flat, cfr), which needs no pass over untouched
rows; the others discount and floor, which throws sampled information away, and the sampled solver refuses them
(``sampled_rule``; bench/sampled_rules.py measures why).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from distcfr.engine import compiled_rows
from distcfr.errors import BadParameter

AUTO = "auto"  # the game's own default_algorithm
EXACT_WEIGHT_UPDATES = 200_000  # average_weight_bounds follows an undeclared schedule this far (a fraction of a second)


@dataclass(frozen=True)
class Discount:
    """The per-iteration constants of a rule (built once per iteration)."""

    t: int
    regret_pos: float
    regret_neg: float
    strategy: float


@dataclass(frozen=True)
class RuleKind:
    """One entry of the registry: what a rule does and which parameters it takes."""

    name: str
    summary: str  # one line for --help
    schedule: Callable[[int, Mapping[str, float]], Discount]  # (t, params) -> Discount
    floor: bool = False
    predictive: bool = False
    params: Mapping[str, float] = field(default_factory=dict)  # name -> default
    param_help: Mapping[str, str] = field(default_factory=dict)
    # optional: when the strategy discount is ((t-1)/t)^gamma (the average weighs iteration k by
    # k^gamma), gamma or the name of the parameter holding it; checkpoints of long runs are then
    # checked in closed form (tests/test_hostile_input.py checks it against the schedule)
    average_exponent: float | str | None = None
    # chance-sampled solving: the weight of iteration t's regrets and sums (the rule in weighted
    # form, which needs no pass over untouched rows), or why the rule is refused there
    sampled_weight: Callable[[int], float] | None = None
    not_sampled_because: str = ""
    # the weight of iteration t's strategy sums when it differs from its regrets' (None: the same)
    sampled_sum_weight: Callable[[int], float] | None = None


def _dcfr(t: int, p: Mapping[str, float]) -> Discount:
    x = float(t - 1)
    pos, neg = x ** p["alpha"], x ** p["beta"]
    return Discount(t, pos / (pos + 1), neg / (neg + 1), (x / t) ** p["gamma"])


LINEAR_UNTIL = 1000  # lcfr-flat's last linearly weighted iteration (the rule's entry says why)


def _flat_after(t: int) -> float:
    return float(min(t, LINEAR_UNTIL))


def _lcfr_flat(t: int, p: Mapping[str, float]) -> Discount:
    d = (t - 1) / t if t <= LINEAR_UNTIL else 1.0
    return Discount(t, d, d, d * d)


RULES: dict[str, RuleKind] = {kind.name: kind for kind in (
    RuleKind("dcfr", "discounted CFR (Brown & Sandholm 2019), DCFR(alpha, beta, gamma): positive regrets "
             "times x^alpha/(x^alpha+1), negative times x^beta/(x^beta+1), averages times (x/t)^gamma, x = t-1",
             _dcfr, params={"alpha": 1.5, "beta": 0.0, "gamma": 2.0},
             param_help={"alpha": "positive-regret discount exponent", "beta": "negative-regret discount exponent",
                         "gamma": "average-strategy discount exponent"}, average_exponent="gamma",
             not_sampled_because="it discounts negative regrets away, discarding sampled information "
             "(bench/sampled_rules.py measures how much)"),
    RuleKind("cfr", "vanilla CFR (Zinkevich et al. 2007)", lambda t, p: Discount(t, 1.0, 1.0, 1.0),
             sampled_weight=lambda t: 1.0, average_exponent=0.0),
    RuleKind("cfr+", "CFR+ (Tammelin 2014): floored regrets, linear averaging",
             lambda t, p: Discount(t, 1.0, 1.0, (t - 1) / t), floor=True, average_exponent=1.0,
             not_sampled_because="it floors regrets at zero, discarding sampled information "
             "(bench/sampled_rules.py measures how much)"),
    RuleKind("lcfr", "linear CFR (Brown & Sandholm 2019): regrets and averages weighted by t",
             lambda t, p: Discount(t, (t - 1) / t, (t - 1) / t, (t - 1) / t), sampled_weight=float,
             average_exponent=1.0),
    RuleKind("lcfr-cubic", "linear CFR's regrets (weighted by t) with cubic averaging (strategy sums weighted by "
             "t^3): the average leans on late iterates, which under chance sampling beats linear averaging "
             "(bench/sampled_quality.py)",
             lambda t, p: Discount(t, (t - 1) / t, (t - 1) / t, ((t - 1) / t) ** 3), sampled_weight=float,
             sampled_sum_weight=lambda t: float(t) ** 3, average_exponent=3.0),
    RuleKind("lcfr-square", "linear CFR's regrets (weighted by t) with quadratic averaging (strategy sums weighted "
             "by t^2): near cubic averaging's few early iterates, near linear averaging's lower noise after thousands "
             "(bench/sampled_quality.py)",
             lambda t, p: Discount(t, (t - 1) / t, (t - 1) / t, ((t - 1) / t) ** 2), sampled_weight=float,
             sampled_sum_weight=lambda t: float(t) ** 2, average_exponent=2.0),
    RuleKind("lcfr-flat", f"lcfr-square for the first {LINEAR_UNTIL:,} iterations, then every iteration weighted "
             "alike (regrets and sums): under chance sampling, weights growing with t keep the average on the latest, "
             "noisiest iterates (Pluribus stopped linear weighting after its first hours); the sampled default "
             "(bench/sampled_quality.py)",
             _lcfr_flat, sampled_weight=_flat_after, sampled_sum_weight=lambda t: _flat_after(t) ** 2),
    RuleKind("pcfr+", "predictive CFR+ (Farina, Kroer & Sandholm 2021): CFR+ whose next strategy is regret "
             "matching on R + r_t, quadratic averaging",
             lambda t, p: Discount(t, 1.0, 1.0, ((t - 1) / t) ** 2), floor=True, predictive=True,
             average_exponent=2.0,
             not_sampled_because="it floors regrets at zero and predicts from one noisy sample"),
)}
ALGORITHMS = tuple(RULES)


@dataclass(frozen=True)
class Rule:
    """A registered rule with its parameter values."""

    kind: RuleKind
    params: tuple[tuple[str, float], ...] = ()

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def floor(self) -> bool:
        return self.kind.floor

    @property
    def predictive(self) -> bool:
        return self.kind.predictive

    def discount(self, t: int) -> Discount:
        return self.kind.schedule(t, dict(self.params))

    @property
    def average_exponent(self) -> float | None:
        """gamma when the average strategy weighs iteration k by k^gamma (None: not declared)."""
        gamma = self.kind.average_exponent
        return float(dict(self.params)[gamma]) if isinstance(gamma, str) else gamma

    def average_weight_bounds(self, updates: int) -> tuple[float, float]:
        """Bounds on the strategy sums of an infoset reached with probability 1, after ``updates``
        updates of its player: W_u = d_u W_(u-1) + 1 with d_t the strategy discount. In closed form
        for a declared exponent (sum_k k^gamma / u^gamma, between u/(gamma+1) and u/(gamma+1) + 1),
        else by the recurrence up to EXACT_WEIGHT_UPDATES updates, else only 1 <= W_u <= u."""
        if updates == 0:
            return 0.0, 0.0
        gamma = self.average_exponent
        if gamma is not None:
            low = updates / (gamma + 1)
            return low, min(low + 1, float(updates))
        if updates > EXACT_WEIGHT_UPDATES:
            return 1.0, float(updates)
        weight = 0.0
        for t in range(1, updates + 1):
            weight = self.discount(t).strategy * weight + 1
        return weight, weight

    def fields(self) -> dict:
        """The rule as checkpoint and summary fields: its name and parameter values."""
        return {"name": self.name, **dict(self.params)}


def make_rule(name: str, **given: float | None) -> Rule:
    """The rule called ``name``; keyword arguments override its parameters (None = default)."""
    key = name.lower().replace("plus", "+")
    if key not in RULES:
        raise BadParameter(f"unknown algorithm {name!r} (known: {', '.join(RULES)})")
    kind = RULES[key]
    given = {k: v for k, v in given.items() if v is not None}
    foreign = [k for k in given if k not in kind.params]
    if foreign:
        owners = sorted({r.name for r in RULES.values() for k in foreign if k in r.params})
        where = f"only apply to {', '.join(owners)}" if owners else "are not parameters of any rule"
        raise BadParameter(f"{', '.join(foreign)} {where}, not {key}")
    for k, v in given.items():
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
            raise BadParameter(f"{key} {k} must be a finite number >= 0, got {v!r}")
    params = {**kind.params, **{k: float(v) for k, v in given.items()}}
    return Rule(kind, tuple(params.items()))


def sampled_rule(name: str) -> Rule:
    """The rule called ``name`` for chance-sampled solving (BadParameter, saying why, for a rule the
    registry marks as not used with sampling)."""
    rule = make_rule(name)
    if rule.kind.sampled_weight is None:
        usable = ", ".join(name for name, kind in RULES.items() if kind.sampled_weight is not None)
        raise BadParameter(f"{rule.name} is not used with sampling: {rule.kind.not_sampled_because}; "
                           f"use one of {usable}")
    return rule


def rule_from_fields(fields: Mapping, complete: bool = False) -> Rule:
    """The rule a checkpoint or summary's ``fields()`` describe; with ``complete``, every
    parameter of the rule must be given (as ``fields()`` writes them)."""
    if not isinstance(fields, Mapping) or not isinstance(fields.get("name"), str):
        raise BadParameter("the rule has no name")
    given = {k: v for k, v in fields.items() if k != "name"}
    rule = make_rule(fields["name"], **given)
    missing = [k for k in rule.kind.params if given.get(k) is None]
    if complete and missing:
        raise BadParameter(f"{rule.name} parameter {missing[0]} is missing")
    return rule


def update(rule: Rule, d: Discount, regrets: np.ndarray, sums: np.ndarray,
           inst_regret: np.ndarray, inst_sum: np.ndarray) -> None:
    """Apply one iteration of ``rule`` to one player's rows of the tables, in place."""
    if d.regret_pos == d.regret_neg:
        if d.regret_pos != 1.0:
            regrets *= d.regret_pos
    else:
        regrets *= np.where(regrets > 0, d.regret_pos, d.regret_neg)
    regrets += inst_regret
    if rule.floor:
        np.maximum(regrets, 0.0, out=regrets)
    if d.strategy != 1.0:
        sums *= d.strategy
    sums += inst_sum


def regret_matching(regrets: np.ndarray, uniform: np.ndarray | None = None,
                    out: np.ndarray | None = None) -> np.ndarray:
    """Strategy proportional to positive regrets over the last axis, in the regrets' precision;
    where none is positive, ``uniform`` ((n, A): uniform over the legal actions, 0 on padding: an
    exact solver's tables) or, without it, uniform over every action (a sampled solver's rows,
    computed in ``out`` when given: an array of the regrets' shape and dtype). A sampled row is
    one compiled pass (:func:`~distcfr.engine.compiled_rows.match_rows`: its positive total term
    after term, +0.0 where a regret is not positive); an exact table's short action axis totals
    by a matrix product (faster there than a sum). Each mode's files are reproduced bit for bit
    by its own."""
    if uniform is None:
        out = np.empty(regrets.shape, regrets.dtype) if out is None else out
        a = regrets.shape[-1]
        rows, into = np.ascontiguousarray(regrets).reshape(-1, a), out.reshape(-1, a)
        compiled_rows.match_rows(rows, into, regrets.dtype.type(1 / a))
        if not np.shares_memory(into, out):  # out was not contiguous: reshape copied
            out[...] = into.reshape(out.shape)
        return out
    positive = np.maximum(regrets, 0)
    total = (positive @ np.ones(positive.shape[-1], positive.dtype))[..., None]
    fallback = np.broadcast_to(uniform, positive.shape).astype(positive.dtype)
    return np.divide(positive, total, out=fallback, where=total > 0)


def update_sampled_rows(rule: Rule, t: int, regrets: np.ndarray, sums: np.ndarray, sigma: np.ndarray,
                        q: np.ndarray, reach: np.ndarray) -> None:
    """Apply iteration ``t`` of ``rule`` to the rows a sampled batch touched, in place, in the
    tables' precision: ``q`` (G, ..., A) their summed counterfactual action values, ``reach``
    (G, ..., B, 1) their own reach, ``sigma`` the strategy that played. Weighted form (rules with a
    ``sampled_weight``): R += w (Q - sigma.Q); S += w reach sigma. Any other rule: its discounts on
    these rows, then R += Q - sigma.Q (floored where the rule floors) and S += reach sigma."""
    dtype = regrets.dtype
    if rule.kind.sampled_weight is not None:
        w = dtype.type(rule.kind.sampled_weight(t))
        v = w if rule.kind.sampled_sum_weight is None else dtype.type(rule.kind.sampled_sum_weight(t))
        a = q.shape[-1]
        flat = [np.ascontiguousarray(x).reshape(-1, a) for x in (regrets, sums)]
        own = np.ascontiguousarray(np.broadcast_to(reach, q.shape[:-1] + (1,))).reshape(-1)  # a row's reach
        compiled_rows.weighted_update(*flat, np.ascontiguousarray(sigma).reshape(-1, a),
                                      np.ascontiguousarray(q).reshape(-1, a), own, w, v)
        for table, rows in zip((regrets, sums), flat):
            if not np.shares_memory(table, rows):  # not contiguous: updated in a copy
                table[...] = rows.reshape(table.shape)
        return
    q = q.astype(dtype)  # a copy
    s = sigma.astype(dtype, copy=False)
    q -= sum_last(s * q)[..., None]  # the regret of each action
    d = rule.discount(t)
    regrets *= np.where(regrets > 0, d.regret_pos, d.regret_neg).astype(dtype)
    regrets += q
    if rule.floor:
        np.maximum(regrets, 0, out=regrets)
    sums *= dtype.type(d.strategy)
    sums += reach.astype(dtype) * s


def sum_last(values: np.ndarray) -> np.ndarray:
    """Sum over the last axis, term after term: a row's sum must not depend on how many rows are
    summed beside it (np.einsum's and np.sum's loops do, by an ulp)."""
    total = values[..., 0].copy()
    for j in range(1, values.shape[-1]):
        total += values[..., j]
    return total

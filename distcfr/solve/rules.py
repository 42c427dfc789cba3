"""Update rules of the CFR family. They differ only in how the accumulated regrets and
strategy sums are discounted each iteration, whether regrets are floored at zero, and
whether the next strategy uses a prediction. At iteration t (1-based), for one player:

1. R <- R * (pos_t where R > 0 else neg_t) + r_t        (r_t: instantaneous regret)
2. if floor: R <- max(R, 0)
3. S <- S * strat_t + s_t                              (s_t: reach-weighted strategy)
4. next strategy = regret matching on R (+ r_t for the predictive rule)

* cfr    Zinkevich et al. 2007, "Regret minimization in games with incomplete information".
* cfr+   Tammelin 2014, "Solving large imperfect information games using CFR+": floored
         regrets, linear averaging (strat_t = (t-1)/t).
* lcfr   Brown & Sandholm 2019, "Solving imperfect-information games via discounted regret
         minimization": regrets and averages weighted by t.
* dcfr   the same paper, DCFR(alpha, beta, gamma): positive regrets times
         x^alpha/(x^alpha+1), negative times x^beta/(x^beta+1), averages times (x/t)^gamma,
         x = t - 1; the paper's recommended 1.5, 0, 2 are the defaults.
* pcfr+  Farina, Kroer & Sandholm 2021, "Faster game solving via predictive Blackwell
         approachability": CFR+ whose next strategy is regret matching on R + r_t (the last
         regret predicts the next), with quadratic averaging.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from distcfr.errors import BadParameter

ALGORITHMS = ("dcfr", "cfr", "cfr+", "lcfr", "pcfr+")
AUTO = "auto"  # the game's own default_algorithm


@dataclass(frozen=True)
class Discount:
    """The per-iteration constants of a rule (built once per iteration)."""

    t: int
    regret_pos: float
    regret_neg: float
    strategy: float


@dataclass(frozen=True)
class Rule:
    """An update rule; ``alpha``, ``beta``, ``gamma`` only matter for dcfr."""

    name: str = "dcfr"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0

    @property
    def floor(self) -> bool:
        return self.name in ("cfr+", "pcfr+")

    @property
    def predictive(self) -> bool:
        return self.name == "pcfr+"

    def discount(self, t: int) -> Discount:
        x = float(t - 1)
        if self.name == "cfr":
            return Discount(t, 1.0, 1.0, 1.0)
        if self.name == "cfr+":
            return Discount(t, 1.0, 1.0, x / t)
        if self.name == "lcfr":
            return Discount(t, x / t, x / t, x / t)
        if self.name == "pcfr+":
            return Discount(t, 1.0, 1.0, (x / t) ** 2)
        pos, neg = x**self.alpha, x**self.beta
        return Discount(t, pos / (pos + 1), neg / (neg + 1), (x / t) ** self.gamma)

    def params(self) -> dict:
        return {"name": self.name, "alpha": self.alpha, "beta": self.beta, "gamma": self.gamma}


def make_rule(name: str, alpha: float | None = None, beta: float | None = None,
              gamma: float | None = None) -> Rule:
    """The rule called ``name``; alpha/beta/gamma override the dcfr defaults."""
    key = name.lower().replace("plus", "+")
    if key not in ALGORITHMS:
        raise BadParameter(f"unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    given = {k: v for k, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma)) if v is not None}
    if given and key != "dcfr":
        raise BadParameter(f"{', '.join(given)} only apply to dcfr, not {key}")
    for k, v in given.items():
        if not np.isfinite(v) or v < 0:
            raise BadParameter(f"dcfr {k} must be a finite number >= 0, got {v}")
    return Rule(key, **{k: float(v) for k, v in given.items()})


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


def regret_matching(regrets: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Strategy proportional to positive regrets; ``uniform`` (n, A) (uniform over the legal
    actions, 0 on padding) where none is positive. regrets (..., n, A) float64."""
    positive = np.maximum(regrets, 0.0)
    total = positive @ np.ones(positive.shape[-1])  # a product: faster than sum over a short axis
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total[..., None] > 0, positive / total[..., None], uniform)

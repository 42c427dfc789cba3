"""Compiled (numba) passes over a sampled solve's table rows: regret matching and the weighted
update. numpy runs each as several whole-table passes with temporaries, which at the 5-card
game's size (hundreds of MB of rows a half-iteration) cost more than the deals themselves; these walk
each row once. Every row's arithmetic is its own, term after term in the table's precision, so a
row's bits do not depend on how many rows a call holds.
"""

from __future__ import annotations

import numba

_JIT = {"cache": True, "nogil": True}


@numba.njit(**_JIT)
def match_rows(regrets, out, uniform):
    """out[i] = regrets[i]'s positive part over its total, term after term, or ``uniform`` where no
    regret is positive; both (N, A), of one dtype."""
    n, a = regrets.shape
    zero = regrets.dtype.type(0)
    for i in range(n):
        total = zero
        for j in range(a):
            r = regrets[i, j]
            p = r if r > zero else zero
            out[i, j] = p
            total += p
        if total > zero:
            for j in range(a):
                out[i, j] = out[i, j] / total
        else:
            for j in range(a):
                out[i, j] = uniform


@numba.njit(**_JIT)
def weighted_update(regrets, sums, sigma, q, reach, w, v):
    """One weighted update of rows (N, A) (reach (N,): the row's own reach, times v once):
    R += w (Q - sigma.Q); S += (reach v) sigma, the value sigma.Q summed term after term, all in
    the tables' precision (``sigma`` and ``q`` cast to it first)."""
    n, a = regrets.shape
    for i in range(n):
        value = regrets.dtype.type(sigma[i, 0]) * regrets.dtype.type(q[i, 0])
        for j in range(1, a):
            value += regrets.dtype.type(sigma[i, j]) * regrets.dtype.type(q[i, j])
        own = regrets.dtype.type(reach[i]) * v
        for j in range(a):
            s = regrets.dtype.type(sigma[i, j])
            regrets[i, j] += (regrets.dtype.type(q[i, j]) - value) * w
            sums[i, j] += own * s

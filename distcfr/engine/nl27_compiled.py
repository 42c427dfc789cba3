"""Compiled (numba) CFR pass of the sampled nl27 kernel (:mod:`distcfr.engine.sampled_nl27`), one deal
at a time: the betting before the draw, both draws per line, and the betting after the draw for
every pair of draw counts, over the public tree flattened into int / float arrays (:class:`FlatTree`).

Per deal it gives the button's value, or the traverser's counterfactual action values and own reach:
added in float64 to its class's rows of the class tables (deals in order, so a class's sums depend
only on its own deals), and, rounded per deal to int64 units of ``KEY_SUM_UNIT``, to its post-draw
keys' rows (integer sums: their order changes no bit). A table column that copies an action (its
``alias``) plays that action: its probability is folded onto it, and its value is that action's.
After the draw, a line's betting is worked for all pairs of draw counts someone reaches at once,
decision after decision, so that the loops over the pairs are long and alike and the tree's
bookkeeping is done once per decision. A pair whose opponent's reach is 0 at every stack adds
nothing but the own reach and is worth nothing upstream (every path to it is weighted by that 0):
with no traverser, or no reach of its own either, it is left out. The real deck's tables do not fit
in the caches: the next decision's rows are prefetched while one is worked.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from distcfr.engine.sampled_kernel import KEY_SUM_UNIT

_JIT = {"cache": True, "nogil": True}
_KIND_DECISION, _KIND_FOLD, _KIND_LINE, _KIND_SHOWDOWN = 0, 1, 2, 3


@dataclasses.dataclass(frozen=True)
class FlatTree:
    """The public tree as arrays. Before the draw, items in breadth-first order (item 0 the root):
    ``pre_kind`` (decision / fold / line), ``pre_player``, ``pre_index`` (a decision's place on its
    player's node axis), ``pre_child`` (n, A) child items, ``pre_nch`` children, ``pre_alias``
    (n, B, A) the action each column plays, ``pre_amount`` (n, B) a fold's button payoff, ``pre_line``
    a line's index. After the draw, line l's template is nodes [line_start[l], line_start[l + 1])
    breadth first, its root first: ``post_kind`` (decision / fold / showdown), ``post_player``,
    ``post_col`` (a decision's place / K2 on its player's post axis), ``post_child`` (node ids),
    ``post_nch``, ``post_alias``, ``post_amount`` (a fold's button payoff, a showdown's pot share)."""

    pre_kind: np.ndarray
    pre_player: np.ndarray
    pre_index: np.ndarray
    pre_child: np.ndarray
    pre_nch: np.ndarray
    pre_alias: np.ndarray
    pre_amount: np.ndarray
    pre_line: np.ndarray
    line_start: np.ndarray
    post_kind: np.ndarray
    post_player: np.ndarray
    post_col: np.ndarray
    post_child: np.ndarray
    post_nch: np.ndarray
    post_alias: np.ndarray
    post_amount: np.ndarray

    def arrays(self) -> tuple:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))


def flatten(kernel) -> FlatTree:
    """The :class:`FlatTree` of a :class:`~distcfr.engine.sampled_nl27.SampledNl27`'s public tree."""
    b = len(kernel.stacks)
    items = {n: i for i, (_, n) in enumerate(kernel.pre_order)}
    n, a = len(kernel.pre_order), kernel.pre_width
    decisions = {dec.node: dec for dec in kernel.pre_decisions}
    pre = {"kind": np.zeros(n, np.int64), "player": np.zeros(n, np.int64), "index": np.zeros(n, np.int64),
           "child": np.zeros((n, a), np.int64), "nch": np.zeros(n, np.int64), "alias": np.zeros((n, b, a), np.int64),
           "amount": np.zeros((n, b)), "line": np.zeros(n, np.int64)}
    for i, (kind, node) in enumerate(kernel.pre_order):
        if kind == "decision":
            dec = decisions[node]
            pre["player"][i], pre["index"][i], pre["alias"][i] = dec.player, dec.index, dec.alias
            pre["nch"][i] = len(dec.children)
            pre["child"][i, :len(dec.children)] = [items[c] for c in dec.children]
        elif kind == "fold":
            pre["kind"][i], pre["amount"][i] = _KIND_FOLD, kernel.pre_amount[node]
        else:
            pre["kind"][i], pre["line"][i] = _KIND_LINE, kernel.line_of[node]
    if items[0] != 0:
        raise ValueError("the tree's root must come first")
    sizes = [len(t.kind) for t in kernel.templates]
    m, w = sum(sizes), kernel.post_width
    post = {"kind": np.zeros(m, np.int64), "player": np.zeros(m, np.int64), "col": np.zeros(m, np.int64),
            "child": np.zeros((m, w), np.int64), "nch": np.zeros(m, np.int64), "alias": np.zeros((m, b, w), np.int64),
            "amount": np.zeros((m, b))}
    at = 0
    for t in kernel.templates:
        for j, kind in enumerate(t.kind):
            g = at + j
            post["nch"][g] = len(t.children[j])
            post["child"][g, :len(t.children[j])] = [at + c for c in t.children[j]]
            if kind == "decision":
                dec = t.decisions[j]
                post["player"][g], post["alias"][g] = dec.player, dec.alias
                post["col"][g] = t.base[dec.player] + dec.index
            else:
                post["kind"][g] = _KIND_FOLD if kind == "fold" else _KIND_SHOWDOWN
                post["amount"][g] = t.amount[j]
        at += len(t.kind)
    return FlatTree(*(pre[k] for k in ("kind", "player", "index", "child", "nch", "alias", "amount", "line")),
                    np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                    *(post[k] for k in ("kind", "player", "col", "child", "nch", "alias", "amount")))


_UNIT = 1.0 / KEY_SUM_UNIT  # 2^32: key sums count units of 2^-32 BB
_ROUNDER = 6755399441055744.0  # 1.5 2^52: x + it - it is x rounded half to even, for |x| < 2^51


@numba.njit(inline="always")
def _fixed(x):
    """x in units of 2^-32, rounded half to even to int64 (np.rint's result; a libm call costs more)."""
    y = x * _UNIT
    if abs(y) < 2.0**51:
        return np.int64((y + _ROUNDER) - _ROUNDER)
    return np.int64(np.rint(y))


@intrinsic
def _prefetch(typingctx, array, i, j, write):
    """Ask the CPU to bring array[i, j] (the first element there) into its caches (for writing if
    ``write``, a literal 0 or 1): the next decision's rows, whose loads would otherwise wait in turn."""
    if not isinstance(array, types.Array) or not isinstance(write, types.IntegerLiteral):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        at = [args[1], args[2]] + [zero] * (aryty.ndim - 2)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, at)
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, write.literal_value),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, i, j, write), codegen


@numba.njit(**_JIT)
def _post_pairs(li, d, i, a0, a1, player, sign, pre_reach, draw0, draw1, win, keys0, keys1, post0, post1, read0,
                read1, slot, post_q, post_r, line_start, kind, who, col_of, child, nch, alias, leaf, dec_start,
                dec_list, pairs, rows0, rows1, own_slot, sw, live, reach, prob, val, v_post, stride):
    """Line ``li``'s betting after the draw on deal ``d`` (line item ``i`` before the draw, whose reach
    is ``pre_reach[:, i]``) for every pair of draw counts at once: writes the traverser's (the button's
    without one) value at its root to ``v_post`` (H+1, H+1, B) [k1, k0]; adds the traverser's
    post-draw sums. The pairs someone reaches are listed first (``pairs``, their rows, slots and
    signed showdown signs ``sw``), then each decision is worked for all of them together: its loops
    over the pairs are long and alike, the tree's bookkeeping done once per decision. A pair's
    players play rows read_u[keys_u[d, pair]] of ``post_u``, column decision x stride[u, 0] + pair x
    stride[u, 1] ((K2, 1): a row holds every pair; (1, 0): a row per pair); ``leaf`` (nodes, B) a fold's
    value, a showdown's pot share (times the pair's ``sw``)."""
    root = line_start[li]
    hh, b_count, a_width = v_post.shape[0], v_post.shape[2], alias.shape[2]
    opp = 1 - player
    first, stop = dec_start[li], dec_start[li + 1]
    m = 0
    for k1 in range(hh):
        for k0 in range(hh):
            pair = k1 * hh + k0
            on, own_on = False, False
            for b in range(b_count):
                r0 = pre_reach[0, i, b] * draw0[a0, li, k1, b, k0]
                r1 = pre_reach[1, i, b] * draw1[a1, li, b, k1]
                reach[0, root, m, b] = r0
                reach[1, root, m, b] = r1
                v_post[k1, k0, b] = 0.0
                if player < 0:
                    on |= r0 != 0.0 and r1 != 0.0
                else:
                    on |= reach[opp, root, m, b] != 0.0
                    own_on |= reach[player, root, m, b] != 0.0
            if not on and not own_on:  # worth nothing upstream, adds nothing
                continue
            pairs[m] = pair
            rows0[m], rows1[m] = read0[keys0[d, pair]], read1[keys1[d, pair]]
            sw[m] = sign * win[d, pair]
            live[m] = on
            if player >= 0:
                own_slot[m] = slot[keys0[d, pair]] if player == 0 else slot[keys1[d, pair]]
            m += 1
    if m == 0:
        return
    for x in range(stop - 1, first - 1, -1):  # strategies and values, leaves first
        g = dec_list[x]
        col0, step = col_of[g] * stride[who[g], 0], stride[who[g], 1]
        if x > first:  # the next decision's rows on their way
            g_next = dec_list[x - 1]
            u_next = who[g_next]
            col_next, step_next = col_of[g_next] * stride[u_next, 0], stride[u_next, 1]
            for k in range(m):
                if u_next == 0:
                    _prefetch(post0, rows0[k], col_next + pairs[k] * step_next, 0)
                else:
                    _prefetch(post1, rows1[k], col_next + pairs[k] * step_next, 0)
        for k in range(m):
            for b in range(b_count):
                for a in range(a_width):
                    prob[g, k, b, a] = 0.0
                val[g, k, b] = 0.0
        if who[g] == 0:
            for k in range(m):
                r, col = rows0[k], col0 + pairs[k] * step
                for b in range(b_count):
                    for c in range(a_width):
                        prob[g, k, b, alias[g, b, c]] += post0[r, col, b, c]
        else:
            for k in range(m):
                r, col = rows1[k], col0 + pairs[k] * step
                for b in range(b_count):
                    for c in range(a_width):
                        prob[g, k, b, alias[g, b, c]] += post1[r, col, b, c]
        for a in range(nch[g]):
            c = child[g, a]
            if kind[c] == _KIND_DECISION:
                for k in range(m):
                    for b in range(b_count):
                        val[g, k, b] += prob[g, k, b, a] * val[c, k, b]
            elif kind[c] == _KIND_FOLD:
                for k in range(m):
                    for b in range(b_count):
                        val[g, k, b] += prob[g, k, b, a] * leaf[c, b]
            else:
                for k in range(m):
                    for b in range(b_count):
                        val[g, k, b] += prob[g, k, b, a] * (sw[k] * leaf[c, b])
    for k in range(m):
        if live[k]:
            k1, k0 = pairs[k] // hh, pairs[k] % hh
            for b in range(b_count):
                v_post[k1, k0, b] = val[root, k, b] if kind[root] == _KIND_DECISION else sw[k] * leaf[root, b]
    if player < 0:
        return
    for x in range(first, stop):  # the traverser's sums, reach breadth first
        g = dec_list[x]
        u = who[g]
        if u == player:
            col0, step = col_of[g] * stride[u, 0], stride[u, 1]
            for x_next in range(x + 1, stop):  # the next own decision's sums on their way
                if who[dec_list[x_next]] == player:
                    col_next = col_of[dec_list[x_next]] * stride[u, 0]
                    for k in range(m):
                        _prefetch(post_q, own_slot[k], col_next + pairs[k] * step, 1)
                        _prefetch(post_r, own_slot[k], col_next + pairs[k] * step, 1)
                    break
            for k in range(m):
                at, col = own_slot[k], col0 + pairs[k] * step
                for b in range(b_count):
                    r_opp = reach[opp, g, k, b]
                    if r_opp != 0.0:
                        for c in range(a_width):
                            t = child[g, alias[g, b, c]]
                            if kind[t] == _KIND_DECISION:
                                v = val[t, k, b]
                            elif kind[t] == _KIND_FOLD:
                                v = leaf[t, b]
                            else:
                                v = sw[k] * leaf[t, b]
                            post_q[at, col, b, c] += _fixed(r_opp * v)
                    post_r[at, col, b] += _fixed(reach[player, g, k, b])
        for a in range(nch[g]):
            c = child[g, a]
            if kind[c] != _KIND_DECISION:
                continue
            for k in range(m):
                for b in range(b_count):
                    reach[u, c, k, b] = reach[u, g, k, b] * prob[g, k, b, a]
                    reach[1 - u, c, k, b] = reach[1 - u, g, k, b]


@numba.njit(**_JIT)
def cfr_pass(tree, player, group, at0, at1, win, keys0, keys1, pre0, pre1, draw0, draw1, post0, post1,
             read0, read1, slot, values, q_pre, r_pre, q_draw0, r_draw0, q_draw1, r_draw1, post_q, post_r, stride):
    """One CFR pass over deals d: the button plays class row at0[d] of ``pre0`` (U0, N0, B, A) and
    ``draw0`` (U0, L, H+1, B, H+1), the big blind row at1[d] of ``pre1`` (U1, N1, B, A) and ``draw1``
    (U1, L, B, H+1); after the draw counts pair (k1 (H+1) + k0) they play rows read_u[keys_u[d, pair]]
    of ``post_u`` (.., P_u, B, A); ``win`` (D, K2) the showdown signs. With ``player`` -1 writes the
    button's value to ``values`` (D, B); else adds that player's counterfactual action values and own
    reach: to row group[d] of ``q_pre`` (G, N, B, A) / ``r_pre`` (G, N, B) and of its draw table's
    (``q_draw0`` (G, L, H+1, B, H+1) / ``r_draw0`` (G, L, H+1, B), or ``q_draw1`` (G, L, B, H+1) /
    ``r_draw1`` (G, L, B)), in float64; to row slot[key] of ``post_q`` / ``post_r`` in int64 units
    of 2^-32 (each deal's rounded). ``stride`` (2, 2): how player u's post rows are laid out
    (:func:`_post_pairs`)."""
    (kind, who, index, child, nch, alias, amount, line_of, line_start, post_kind, post_who, post_col, post_child,
     post_nch, post_alias, post_amount) = tree
    n_deals, k2 = win.shape
    hh = draw1.shape[3]
    n_items, b_count, a_count = alias.shape
    post_a = post_alias.shape[2]
    sign = -1.0 if player == 1 else 1.0
    opp = 1 - player
    dec_list = np.flatnonzero(post_kind == _KIND_DECISION)  # the decisions after the draw, line after line
    dec_start = np.searchsorted(dec_list, line_start)  # line l's: dec_list[dec_start[l]:dec_start[l + 1]], BFS
    reach = np.empty((2, n_items, b_count))
    prob = np.zeros((n_items, b_count, a_count))
    val = np.empty((n_items, b_count))
    n_post = len(post_kind)
    leaf = np.zeros((n_post, b_count))  # a fold's value, a showdown's pot share
    for g in range(n_post):
        for b in range(b_count):
            leaf[g, b] = sign * post_amount[g, b] if post_kind[g] == _KIND_FOLD else post_amount[g, b]
    pairs, rows0, rows1, own_slot = np.zeros(k2, np.int64), np.zeros(k2, np.int64), np.zeros(k2, np.int64), \
        np.zeros(k2, np.int64)
    sw = np.zeros(k2)
    live = np.zeros(k2, np.bool_)
    m_reach = np.zeros((2, n_post, k2, b_count))
    m_prob = np.zeros((n_post, k2, b_count, post_a))
    m_val = np.zeros((n_post, k2, b_count))
    v_post = np.empty((hh, hh, b_count))
    v_btn = np.empty((hh, b_count))
    p1 = np.empty((hh, b_count))
    for d in range(n_deals):
        a0, a1 = at0[d], at1[d]
        g = group[d]
        for b in range(b_count):
            reach[0, 0, b] = 1.0
            reach[1, 0, b] = 1.0
        for i in range(n_items):  # before the draw: both players' reach, breadth first
            if kind[i] != _KIND_DECISION:
                continue
            u = who[i]
            row = index[i]
            for b in range(b_count):
                for a in range(a_count):
                    prob[i, b, a] = 0.0
                if u == 0:
                    for c in range(a_count):
                        prob[i, b, alias[i, b, c]] += pre0[a0, row, b, c]
                else:
                    for c in range(a_count):
                        prob[i, b, alias[i, b, c]] += pre1[a1, row, b, c]
            for a in range(nch[i]):
                c = child[i, a]
                for b in range(b_count):
                    reach[u, c, b] = reach[u, i, b] * prob[i, b, a]
                    reach[1 - u, c, b] = reach[1 - u, i, b]
        for i in range(n_items - 1, -1, -1):  # values, leaves first
            k = kind[i]
            if k == _KIND_FOLD:
                for b in range(b_count):
                    val[i, b] = sign * amount[i, b]
            elif k == _KIND_LINE:
                li = line_of[i]
                _post_pairs(li, d, i, a0, a1, player, sign, reach, draw0, draw1, win, keys0, keys1, post0, post1,
                            read0, read1, slot, post_q, post_r, line_start, post_kind, post_who, post_col, post_child,
                            post_nch, post_alias, leaf, dec_start, dec_list, pairs, rows0, rows1, own_slot, sw, live,
                            m_reach, m_prob, m_val, v_post, stride)
                for k1 in range(hh):
                    for b in range(b_count):
                        p1[k1, b] = reach[1, i, b] * draw1[a1, li, b, k1]
                for b in range(b_count):
                    total = 0.0
                    for k1 in range(hh):
                        v = 0.0
                        for k0 in range(hh):
                            v += v_post[k1, k0, b] * draw0[a0, li, k1, b, k0]
                        v_btn[k1, b] = v
                        total += v * draw1[a1, li, b, k1]
                    val[i, b] = total
                if player == 0:
                    for k1 in range(hh):
                        for b in range(b_count):
                            r_draw0[g, li, k1, b] += reach[0, i, b]
                            for k0 in range(hh):
                                q_draw0[g, li, k1, b, k0] += p1[k1, b] * v_post[k1, k0, b]
                elif player == 1:
                    for b in range(b_count):
                        r_draw1[g, li, b] += reach[1, i, b]
                        for k1 in range(hh):
                            q_draw1[g, li, b, k1] += reach[0, i, b] * v_btn[k1, b]
            else:
                u = who[i]
                for b in range(b_count):
                    v = 0.0
                    for a in range(nch[i]):
                        v += prob[i, b, a] * val[child[i, a], b]
                    val[i, b] = v
                if u == player:
                    row = index[i]
                    for b in range(b_count):
                        r_pre[g, row, b] += reach[u, i, b]
                        for c in range(a_count):
                            q_pre[g, row, b, c] += reach[opp, i, b] * val[child[i, alias[i, b, c]], b]
        if player < 0:
            for b in range(b_count):
                values[d, b] = val[0, b]

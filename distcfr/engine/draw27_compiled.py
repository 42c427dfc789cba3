"""Compiled (numba) deal loops of the sampled draw27 kernel: drawing deals, naming the other hand's
class, and a hand class's counterfactual sums, one deal at a time.

numpy's batched products compute every discard pair of every deal, including the many that weigh
nothing: the other player folds the hand at every stack, or never draws that way (regret matching
leaves most discards at exactly 0). These loops skip those exactly (a product by 0 adds nothing),
look final hands' ranks up only where a pair weighs something, and keep no per-deal temporaries.
Each class's deals are summed in order, in float64, so a class's sums depend only on its own
deals: bitwise the same whatever else shares the call, on any number of workers.
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = {"cache": True, "nogil": True}
_RANK_MASK = (1 << 20) - 1  # the rank field of a card key (distcfr.cards)
_FALLBACK = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(**_JIT)
def _below(word, bound):
    """A uniform integer in [0, bound) from a uniform 64-bit word (Lemire's multiply-and-reject:
    exactly uniform; a word that would be rejected, with probability below bound / 2**64, is
    replaced by a mix of itself)."""
    s = np.uint64(bound)
    while True:
        lo32, hi32 = word & np.uint64(0xFFFFFFFF), word >> np.uint64(32)
        low = word * s  # the product's low 64 bits (wraps)
        high = (hi32 * s + ((lo32 * s) >> np.uint64(32))) >> np.uint64(32)
        if low >= s or low >= (np.uint64(0) - s) % s:
            return np.int64(high)
        word = (word ^ (word >> np.uint64(31))) * _FALLBACK  # rejected (never seen in practice)


def stub_words(h: int, stubs: int) -> int:
    """Random words :func:`draw_deals` reads per deal of ``h``-card hands with ``stubs`` stubs: one a
    pick for the other hand and the first stub, a 16-bit piece a pick for the others (and a word
    to spare for the pieces Lemire's method rejects)."""
    return 3 * h + (0 if stubs == 1 else -(-2 * h * (stubs - 1) // 4) + 1)


@numba.njit(**_JIT)
def _deal_buffers(n, h, size, stubs):
    """(out (n, 2H + 2H stubs), rest (size,), taken (size,) all False): what drawing n deals writes in."""
    return np.empty((n, 2 * h + 2 * h * stubs), np.int32), np.empty(size, np.int32), np.zeros(size, np.bool_)


@numba.njit(**_JIT)
def _own_hand_and_rest(own, d, mine, out, deck_place, deck, taken, rest):
    """Write deal d's own hand at column ``mine`` of ``out`` and the rest of the deck, in deck order,
    at the front of ``rest`` (``taken``: all False, left so); return how many cards rest holds."""
    h = own.shape[1]
    for j in range(h):
        taken[deck_place[own[d, j]]] = True
        out[d, mine + j] = own[d, j]
    r = 0
    for i in range(len(deck)):
        if taken[i]:
            taken[i] = False
        else:
            rest[r] = deck[i]
            r += 1
    return r


@numba.njit(**_JIT)
def draw_deals(own, player, words, deck_place, deck, stubs):
    """(n, 2H + 2H stubs) deals: player ``player`` holds ``own`` (n, H) deck cards; the other hand,
    then the first stub's 2H cards, are the first 3H places of a partial Fisher-Yates shuffle of
    the rest of the deck, one word of ``words`` (n, :func:`stub_words`) a pick; each further
    stub shuffles the 2H places after the other hand again, a 16-bit piece of a word a pick
    (exactly uniform too). So every stub is uniform given both hands, and the stubs are
    independent given them. ``deck_place``: card id -> place in ``deck``."""
    n, h = own.shape
    size = len(deck)
    out, rest, taken = _deal_buffers(n, h, size, stubs)
    mine, theirs = player * h, (1 - player) * h
    for d in range(n):
        r = _own_hand_and_rest(own, d, mine, out, deck_place, deck, taken, rest)
        for i in range(h):
            j = i + _below(words[d, i], r - i)
            card = rest[j]
            rest[j] = rest[i]
            rest[i] = card
            out[d, theirs + i] = card
        _draw_stubs(out, d, rest, r, h, stubs, words, h)
    return out


@numba.njit(**_JIT)
def _draw_stubs(out, d, rest, r, h, stubs, words, w0):
    """Deal d's stubs (columns 2H on of ``out``) from the cards rest[H:r] neither hand holds: the first
    2H places of a partial Fisher-Yates shuffle, word w0 + i a pick; each further stub shuffles them
    again, a 16-bit piece of the words after a pick (Lemire's multiply-and-reject: exactly uniform)."""
    for i in range(h, 3 * h):
        j = i + _below(words[d, w0 + i - h], r - i)
        card = rest[j]
        rest[j] = rest[i]
        rest[i] = card
        out[d, h + i] = card
    w, pieces, word = w0 + 2 * h, 0, np.uint64(0)
    for s in range(1, stubs):
        for i in range(h, 3 * h):
            bound = np.uint64(r - i)
            while True:  # Lemire's multiply-and-reject on 16 bits
                if pieces == 0:
                    if w < words.shape[1]:
                        word = words[d, w]
                        w += 1
                    else:  # the spare word spent on rejections too (never seen in practice)
                        word = (word ^ (word >> np.uint64(31))) * _FALLBACK
                    pieces = 4
                product = (word & np.uint64(0xFFFF)) * bound
                word >>= np.uint64(16)
                pieces -= 1
                low = product & np.uint64(0xFFFF)
                if low >= bound or low >= np.uint64(65536) % bound:
                    break
            j = i + np.int64(product >> np.uint64(16))
            card = rest[j]
            rest[j] = rest[i]
            rest[i] = card
            out[d, h + 2 * h * s + i] = card


def cycle_words(h: int, stubs: int, spread: bool = False) -> int:
    """Random words :func:`draw_cycle_deals` reads per deal: :func:`stub_words` less the other hand's;
    with ``spread`` the first stub's only."""
    return 2 * h if spread else stub_words(h, stubs) - h


@numba.njit(inline="always")
def _mix(x):
    """splitmix64's finaliser: a bijective scramble of a 64-bit word."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(**_JIT)
def cycle_map(size, key):
    """(a, b): the permutation i -> (a i + b) mod size of range(size) a cycle walks, b uniform from
    ``key`` and a the first unit mod size from size / golden ratio: successive places land far apart
    (the golden ratio's multiples mod 1 spread evenly), so a class's deals of one iteration spread over
    the colex order of the other hands, which is nearly their order of strength (highest card first)."""
    b = np.int64(_mix(key) % np.uint64(size))
    a = max(np.int64(1), np.int64(size * 0.6180339887498949))
    while size > 1:  # the next unit from there (gcd by Euclid)
        x, y = a, size
        while y:
            x, y = y, x % y
        if x == 1:
            break
        a = a % (size - 1) + 1
    return a, b


@numba.njit(**_JIT)
def draw_cycle_deals(own, player, positions, keys, words, deck_place, deck, stubs, choose, spread):
    """:func:`draw_deals` with the other hand walked in a cycle instead of drawn: deal d's is hand
    number (a i + b) mod R (:func:`cycle_map`; i = positions[d] mod R) in colex order of the R =
    C(N - H, H) hands of the rest of the deck, b named by ``keys[d]`` and the cycle's count
    (positions[d] // R). So a class's successive deals meet every other hand once per cycle, from a
    fresh starting point each cycle, the deals of one visit spread over the other hands' strength,
    and each deal's other hand is uniform (b is). The stubs as :func:`draw_deals`', from ``words``
    (n, :func:`cycle_words`), or with ``spread`` each further stub the first one turned round the
    rest of the deck (:func:`_draw_spread_stubs`). ``choose``: binomials (N + 1, H + 1)."""
    n, h = own.shape
    size = len(deck)
    out, rest, taken = _deal_buffers(n, h, size, stubs)
    mine, theirs = player * h, (1 - player) * h
    hands = choose[size - h, h]
    picked = np.empty(h, np.int64)
    orig = np.empty(size, np.int32)
    idx = np.empty(size, np.int64)
    a, b, last = np.int64(1), np.int64(0), np.uint64(0)
    for d in range(n):
        r = _own_hand_and_rest(own, d, mine, out, deck_place, deck, taken, rest)
        cycle = positions[d] // hands
        key = keys[d] + np.uint64(cycle) * _FALLBACK
        if d == 0 or key != last:  # a class's deals come together: its map is drawn once a cycle
            a, b = cycle_map(hands, key)
            last = key
        index = (a * (positions[d] - cycle * hands) + b) % hands
        top = r
        for j in range(h, 0, -1):  # colex unranking: places picked[h-1] > ... > picked[0]
            p = top - 1  # the largest place p below the last with C(p, j) <= index (C(j - 1, j) = 0)
            while choose[p, j] > index:
                p -= 1
            index -= choose[p, j]
            picked[j - 1] = p
            top = p
        if spread:
            m, k = 0, 0
            for q in range(r):  # the cards neither hand holds, in deck order
                if k < h and picked[k] == q:
                    out[d, theirs + k] = rest[q]
                    k += 1
                else:
                    orig[m] = rest[q]
                    m += 1
            _draw_spread_stubs(out, d, orig, m, h, stubs, words, idx)
            continue
        for i in range(h):  # ascending: each pick is still in place when swapped to the front
            card = rest[picked[i]]
            rest[picked[i]] = rest[i]
            rest[i] = card
            out[d, theirs + i] = card
        _draw_stubs(out, d, rest, r, h, stubs, words, 0)
    return out


@numba.njit(**_JIT)
def _draw_spread_stubs(out, d, orig, m, h, stubs, words, idx):
    """Deal d's stubs from the m cards ``orig`` neither hand holds, in deck order (nearly rank order):
    the first the first 2H places of a partial Fisher-Yates shuffle (word i a pick), stub s
    the first's places turned by s m / stubs round orig. Each stub is uniform given the hands (a
    turn is a bijection), and a deal's stubs draw from every part of the deck's ranks: stratified."""
    for i in range(m):
        idx[i] = i
    for i in range(2 * h):
        j = i + _below(words[d, i], m - i)
        t = idx[j]
        idx[j] = idx[i]
        idx[i] = t
        out[d, 2 * h + i] = orig[t]
    for s in range(1, stubs):
        turn = (s * m) // stubs
        for i in range(2 * h):
            q = idx[i] + turn
            out[d, 2 * h + 2 * h * s + i] = orig[q - m if q >= m else q]


@numba.njit(**_JIT)
def classify(cards, deck_place, choose, hand_class, hand_order):
    """((n,) class ids, (H, n) canonical card order) of hands ``cards`` (n, H) of deck cards in any
    order: the hand's colex index over deck places (``choose``: binomials) looks both up."""
    n, h = cards.shape
    ids = np.empty(n, np.int64)
    canonical = np.empty((h, n), np.int32)
    sorted_cards = np.empty(h, np.int32)
    for d in range(n):
        for j in range(h):  # insertion sort by deck place (ascending card id)
            c = cards[d, j]
            i = j
            while i > 0 and deck_place[sorted_cards[i - 1]] > deck_place[c]:
                sorted_cards[i] = sorted_cards[i - 1]
                i -= 1
            sorted_cards[i] = c
        index = 0
        for j in range(h):
            index += choose[deck_place[sorted_cards[j]], j + 1]
        ids[d] = hand_class[index]
        for j in range(h):
            canonical[j, d] = sorted_cards[hand_order[index, j]]
    return ids, canonical


@numba.njit(inline="always")
def _rank(key, table, flush_offset):
    return table[(key & _RANK_MASK) + flush_offset[key >> 20]]


@numba.njit(inline="always")
def _kept_keys(cards, d, card_keys, low_bit, out):
    """out[m] = the key of the cards mask m keeps of hand ``cards[:, d]`` (canonical order)."""
    h = cards.shape[0]
    total = 0
    for j in range(h):
        total += card_keys[cards[j, d]]
    out[0] = total
    for m in range(1, len(out)):
        out[m] = out[m & (m - 1)] - card_keys[cards[low_bit[m], d]]


@numba.njit(inline="always")
def _reached_span(reach):
    """(lo, hi): the stacks from the first to the last where ``reach`` (B,) is above 0 (lo == hi:
    none). The other player's rows weigh nothing at a stack it does not reach (it folded there),
    whatever they hold: its live masks are looked for in this span only, and the button's products
    run over it (the terms left out are exact zeros, so the sums keep their bits; the big blind's
    shorter products are faster over every stack, where they vectorise)."""
    lo, hi = 0, len(reach)
    while lo < hi and not reach[lo] > 0:
        lo += 1
    while hi > lo and not reach[hi - 1] > 0:
        hi -= 1
    return lo, hi


@numba.njit(inline="always")
def _live_masks(draw, reach, lo, hi, out):
    """How many masks weigh something at some stack b in [lo, hi) that ``reach`` (B,) reaches in
    ``draw`` (B, M) (one strategy row), listed in order in out[:count]: a mask played only at
    stacks where the other player folded weighs nothing (its rows there are what regret matching
    left). Found per deal, as the row's entries are read, rather than in one pass over every row
    first: fetching each deal's row from memory is the bound."""
    m_count = draw.shape[1]
    n = 0
    for m in range(m_count):
        out[m] = 0
    for b in range(lo, hi):  # the mask axis innermost: contiguous
        if reach[b] > 0:
            for m in range(m_count):
                out[m] |= draw[b, m] != 0
    for m in range(m_count):
        if out[m]:
            out[n] = m
            n += 1
    return n


@numba.njit(inline="always")
def _deal_keys(can1, can2, stub, d, card_keys, low_bit, keys, prefix):
    """keys[u, m]: the key of what mask m keeps of player u's hand in deal d; prefix[s, i]: of
    stub s's first i cards (stub s is rows [2H s, 2H (s + 1)) of ``stub``)."""
    _kept_keys(can1, d, card_keys, low_bit, keys[0])
    _kept_keys(can2, d, card_keys, low_bit, keys[1])
    span = prefix.shape[1] - 1
    for s in range(prefix.shape[0]):
        for i in range(span):
            prefix[s, i + 1] = prefix[s, i] + card_keys[stub[span * s + i, d]]


@numba.njit(**_JIT)
def button_sums(starts, can1, can2, stub, theirs, call, bb_draw, stacks, card_keys, table, flush_offset,
                size, low_bit):
    """The button's sums per class: (x (G, H+1, B, M) draw values, fold (G, B) = sum over deals
    of 1 - the big blind's call) for classes whose deals are [starts[g], starts[g + 1]); deal d
    faces big blind row theirs[d] of ``call`` (U, B) and ``bb_draw`` (U, B, M). ``stub`` holds S
    stubs per deal (2H S rows): a deal's draw values are the mean over its stubs."""
    g_count, h, b_count, m_count = len(starts) - 1, can1.shape[0], len(stacks), len(size)
    n_stubs = stub.shape[0] // (2 * h)
    x_out = np.zeros((g_count, h + 1, b_count, m_count), np.float32)
    fold_out = np.zeros((g_count, b_count), np.float32)
    live = np.empty(m_count, np.int64)
    x = np.zeros((h + 1, m_count, b_count))
    fold = np.zeros(b_count)
    keys = np.empty((2, m_count), np.int64)
    prefix = np.zeros((n_stubs, 2 * h + 1), np.int64)
    rank1 = np.empty((n_stubs, h + 1, m_count), np.int64)
    done = np.zeros(h + 1, np.bool_)
    w2 = np.empty(b_count)
    count = np.empty(m_count)
    for g in range(g_count):
        x[:] = 0.0
        fold[:] = 0.0
        for d in range(starts[g], starts[g + 1]):
            o = theirs[d]
            for b in range(b_count):
                fold[b] += 1.0 - call[o, b]
            lo, hi = _reached_span(call[o])
            if lo == hi:
                continue
            _deal_keys(can1, can2, stub, d, card_keys, low_bit, keys, prefix)
            done[:] = False
            for i in range(_live_masks(bb_draw[o], call[o], lo, hi, live)):
                m2 = live[i]
                for b in range(lo, hi):
                    w2[b] = call[o, b] * bb_draw[o, b, m2] * stacks[b]
                k = size[m2]
                if not done[k]:
                    for s in range(n_stubs):
                        for m1 in range(m_count):
                            rank1[s, k, m1] = _rank(keys[0, m1] + prefix[s, k + size[m1]] - prefix[s, k], table,
                                                    flush_offset)
                    done[k] = True
                count[:] = 0.0
                for s in range(n_stubs):  # branch-free: the sign of a pair is a coin toss to the CPU
                    r2 = _rank(keys[1, m2] + prefix[s, k], table, flush_offset)
                    for m1 in range(m_count):
                        count[m1] += np.sign(r2 - rank1[s, k, m1])
                for m1 in range(m_count):
                    for b in range(lo, hi):
                        x[k, m1, b] += count[m1] * w2[b]
        scale = 1.0 / n_stubs
        for k in range(h + 1):
            for m1 in range(m_count):
                for b in range(b_count):
                    x_out[g, k, b, m1] = x[k, m1, b] * scale
        for b in range(b_count):
            fold_out[g, b] = fold[b]
    return x_out, fold_out


@numba.njit(**_JIT)
def big_blind_sums(starts, can1, can2, stub, theirs, push, btn_draw, stacks, card_keys, table, flush_offset,
                   size, low_bit):
    """The big blind's sums per class: (values (G, B, M) draw values, fold (G, B) = minus the sum
    over deals of the button's push) for classes whose deals are [starts[g], starts[g + 1]); deal
    d faces button row theirs[d] of ``push`` (U, B) and ``btn_draw`` (U, H+1, B, M). ``stub``
    holds S stubs per deal (2H S rows): a deal's draw values are the mean over its stubs."""
    g_count, h, b_count, m_count = len(starts) - 1, can1.shape[0], len(stacks), len(size)
    n_stubs = stub.shape[0] // (2 * h)
    v_out = np.zeros((g_count, b_count, m_count), np.float32)
    fold_out = np.zeros((g_count, b_count), np.float32)
    values = np.zeros((m_count, b_count))
    fold = np.zeros(b_count)
    keys = np.empty((2, m_count), np.int64)
    prefix = np.zeros((n_stubs, 2 * h + 1), np.int64)
    stake = np.empty(b_count)
    coef = np.empty((m_count, b_count))
    rank1 = np.empty((n_stubs, m_count), np.int64)
    count = np.empty(m_count)
    live = np.empty(m_count, np.int64)
    by_size = np.argsort(size, kind="mergesort")  # masks by draw count: group k is by_size[first[k]:first[k + 1]]
    first = np.zeros(h + 2, np.int64)
    for m in range(m_count):
        first[size[m] + 1] += 1
    for k in range(h + 1):
        first[k + 1] += first[k]
    for g in range(g_count):
        values[:] = 0.0
        fold[:] = 0.0
        for d in range(starts[g], starts[g + 1]):
            o = theirs[d]
            for b in range(b_count):
                fold[b] -= push[o, b]
                stake[b] = -push[o, b] * stacks[b]
            lo, hi = _reached_span(push[o])
            if lo == hi:
                continue
            _deal_keys(can1, can2, stub, d, card_keys, low_bit, keys, prefix)
            for k in range(h + 1):
                n = _live_masks(btn_draw[o, k], push[o], lo, hi, live)
                if n == 0:
                    continue
                for i in range(n):
                    m1 = live[i]
                    for b in range(b_count):
                        coef[i, b] = stake[b] * btn_draw[o, k, b, m1]
                    for s in range(n_stubs):
                        rank1[s, i] = _rank(keys[0, m1] + prefix[s, k + size[m1]] - prefix[s, k], table,
                                            flush_offset)
                for j in range(first[k], first[k + 1]):
                    m2 = by_size[j]
                    count[:n] = 0.0
                    for s in range(n_stubs):
                        r2 = _rank(keys[1, m2] + prefix[s, k], table, flush_offset)
                        for i in range(n):
                            count[i] += np.sign(r2 - rank1[s, i])
                    for i in range(n):
                        for b in range(b_count):
                            values[m2, b] += count[i] * coef[i, b]
        scale = 1.0 / n_stubs
        for m2 in range(m_count):
            for b in range(b_count):
                v_out[g, b, m2] = values[m2, b] * scale
        for b in range(b_count):
            fold_out[g, b] = fold[b]
    return v_out, fold_out


@numba.njit(**_JIT)
def deal_values(c1, c2, can1, can2, stub, push, btn_draw, call, bb_draw, stacks, card_keys, table, flush_offset,
                size, low_bit):
    """(D, B) float64 button payoff of each deal when the button plays row c1[d] of ``push`` (U1, B)
    and ``btn_draw`` (U1, H+1, B, M), the big blind row c2[d] of ``call`` (U2, B) and ``bb_draw``
    (U2, B, M), the draws in expectation."""
    n, h, b_count, m_count = len(c1), can1.shape[0], len(stacks), len(size)
    out = np.empty((n, b_count))
    keys = np.empty((2, m_count), np.int64)
    prefix = np.zeros((1, 2 * h + 1), np.int64)
    rank1 = np.empty((h + 1, m_count), np.int64)
    done = np.zeros(h + 1, np.bool_)
    shown = np.empty(b_count)
    for d in range(n):
        o1, o2 = c1[d], c2[d]
        live = False
        for b in range(b_count):
            shown[b] = 0.0
            live |= push[o1, b] * call[o2, b] > 0
        if live:
            _deal_keys(can1, can2, stub, d, card_keys, low_bit, keys, prefix)
            done[:] = False
            for m2 in range(m_count):
                weight = False
                for b in range(b_count):
                    weight |= bb_draw[o2, b, m2] != 0
                if not weight:
                    continue
                k = size[m2]
                if not done[k]:
                    for m1 in range(m_count):
                        rank1[k, m1] = _rank(keys[0, m1] + prefix[0, k + size[m1]] - prefix[0, k], table, flush_offset)
                    done[k] = True
                r2 = _rank(keys[1, m2] + prefix[0, k], table, flush_offset)
                for m1 in range(m_count):
                    sign = float(np.sign(r2 - rank1[k, m1]))
                    for b in range(b_count):
                        shown[b] += sign * float(bb_draw[o2, b, m2]) * float(btn_draw[o1, k, b, m1])
        for b in range(b_count):
            p, q = float(push[o1, b]), float(call[o2, b])
            out[d, b] = -0.5 * (1.0 - p) + p * ((1.0 - q) + q * shown[b] * stacks[b])
    return out


@numba.njit(**_JIT)
def strategy_values(sigma, values):
    """(G, B) float32: sum over k of (sum over m of sigma * values), of (G, K, B, M) float32 rows,
    term after term in float32 (as :func:`~distcfr.engine.rules.sum_last` of the products, the same
    bits) and without the (G, K, B, M) product numpy would write first."""
    g_count, k_count, b_count, m_count = values.shape
    out = np.empty((g_count, b_count), np.float32)
    for g in range(g_count):
        for b in range(b_count):
            total = np.float32(0.0)
            for k in range(k_count):
                inner = sigma[g, k, b, 0] * values[g, k, b, 0]
                for m in range(1, m_count):
                    inner += sigma[g, k, b, m] * values[g, k, b, m]
                total = inner if k == 0 else total + inner
            out[g, b] = total
    return out

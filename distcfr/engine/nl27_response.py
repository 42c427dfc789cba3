"""Best responses in sampled nl27 (:class:`~distcfr.engine.sampled_nl27.SampledNl27`), for the
exploitability bracket.

The abstract game's post-draw rows are keys every hand class shares, so a best response by key would
mix every class's deals and forget what the responder holds. The responder here keeps its own rows
after the draw per (hand class, final hand's key, pair of draw counts): it knows its class and its
final hand's key and remembers all it did, draws by the rule (a count), and plays best on the deals it
is chosen on. Its rows then depend on its class's own deals only, as draw27's do, so the bracket's
chunks of classes stay independent. On 1-card decks this responder is the full game's (a class and its
final card say all the responder knows); on larger decks it lies between the abstract game's own
responder by key and the full game's, which also sees the cards behind a key and may throw any cards.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.engine.sampled_bracket import one_hot

LOCAL_PIECE_BYTES = 1 << 26  # a pass reading local rows gathers at most about this many bytes of them at once
MAX_PASSES = 64  # policy improvement ends within the tree's depth in passes; this bounds a fault


@dataclasses.dataclass
class LocalPost:
    """One player's post-draw rows of its own for some hand classes (a best response's): one row per
    (class, key, pair of draw counts) in ``ids``, ``base`` (the key table) for every other."""

    base: np.ndarray  # (K, P, B, A) the key table, P = decisions x K2 (the pair fastest)
    ids: np.ndarray  # (U,) sorted int64 (class x K + key) x K2 + pair
    rows: np.ndarray  # (U, P / K2, B, A) float64

    @classmethod
    def over(cls, kernel, base: np.ndarray) -> LocalPost:
        """No rows of its own yet: plays ``base`` everywhere."""
        return cls(base, np.zeros(0, np.int64), np.zeros((0, base.shape[1] // kernel.k2, *base.shape[2:])))


def local_ids(kernel, classes: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """(D, K2) each deal's (class, key, pair) id for one player: ``classes`` (D,), ``keys`` (D, K2)."""
    return (classes[:, None].astype(np.int64) * kernel.n_keys + keys) * kernel.k2 + np.arange(kernel.k2)


def base_rows(kernel, base: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(U, P / K2, B, A) float64 the key table's rows at (class, key, pair) ``ids``."""
    by_pair = base.reshape(len(base), -1, kernel.k2, *base.shape[2:])
    return np.asarray(by_pair[(ids // kernel.k2) % kernel.n_keys, :, ids % kernel.k2], dtype=np.float64)


def local_view(kernel, table: LocalPost, classes: np.ndarray, keys: np.ndarray) -> tuple:
    """(rows, keys, read) as the compiled pass reads one player's post rows with a pair per row:
    deal d's pair p plays rows[read[keys[d, p]]]; rows of ids ``table`` lacks come from its base."""
    ids = local_ids(kernel, classes, keys)
    pos = np.searchsorted(table.ids, ids)
    found = pos < len(table.ids)
    found[found] = table.ids[pos[found]] == ids[found]
    if found.all():
        return table.rows, pos, np.arange(len(table.ids))
    wanted, at = np.unique(ids, return_inverse=True)
    rows = base_rows(kernel, table.base, wanted)
    where = np.searchsorted(table.ids, wanted)
    mine = where < len(table.ids)
    mine[mine] = table.ids[where[mine]] == wanted[mine]
    rows[mine] = table.rows[where[mine]]
    return rows, at.reshape(ids.shape), np.arange(len(wanted))


def deal_bytes(kernel) -> int:
    """Bytes of one deal's local rows (float64): a row per pair of draw counts, the larger player's."""
    return max(int(np.prod(t.shape)) for t in kernel.strategy_tables if t.keyed != "class") * 8


def piece_deals(kernel) -> int:
    """Deals a pass reading local rows takes together: their rows stay near ``LOCAL_PIECE_BYTES``."""
    return int(max(16, min(kernel.deal_chunk, LOCAL_PIECE_BYTES // deal_bytes(kernel))))


def response_bytes(kernel, per_class: int) -> int:
    """Bytes a class's best response holds on ``per_class`` deals: its local rows, their sums and reach."""
    return per_class * deal_bytes(kernel) * 3


def best_response(kernel, profile: dict, deals: np.ndarray, player: int) -> None:
    """Set ``player``'s rows in ``profile`` to its best response on ``deals`` (grouped by the player's
    class, in class order) to the other player's rows: its class tables' rows of the classes held, and
    its post-draw table a :class:`LocalPost` with a row per (class, key, pair) these deals reach.
    Policy improvement on the deals' counterfactual values: every decision takes its best action given
    the play after it, pass after pass; a decision with no own decision below it is right after the
    first pass, one with such decisions below after one more than they, so the passes end (no choice
    changes) within the tree's depth. Ties go to the first action, so the same deals give the same
    response."""
    pre_name, draw_name, post_name = kernel.names(player)
    held, counts = np.unique(kernel.classes_held(deals, player), return_counts=True)
    group = np.repeat(np.arange(len(held)), counts)
    step = piece_deals(kernel)
    pieces = [slice(lo, lo + step) for lo in range(0, len(deals), step)]
    hands = [kernel.hands(deals[cut]) for cut in pieces]
    table = profile[post_name]
    base = table.base if isinstance(table, LocalPost) else table
    ids = np.unique(np.concatenate([local_ids(kernel, h[0][player], h[2][player]).ravel() for h in hands]))
    local = LocalPost(base, ids, base_rows(kernel, base, ids))
    profile[post_name] = local
    shapes = {name: kernel.strategy_table(name).shape for name in (pre_name, draw_name)}
    slot = np.arange(len(ids))
    for _ in range(MAX_PASSES):
        sums = {name: (np.zeros((len(held), *shape)), np.zeros((len(held), *shape[:-1])))
                for name, shape in shapes.items()}
        post_q = np.zeros(local.rows.shape, np.int64)
        post_r = np.zeros(local.rows.shape[:-1], np.int64)
        for cut, got in zip(pieces, hands):
            kernel.compiled_pass(profile, got, player, group[cut], sums=sums, post_sums=(post_q, post_r, slot))
        changed = False
        for name, (q, _) in sums.items():
            chosen = one_hot(q)
            changed |= not np.array_equal(chosen, np.asarray(profile[name][held], dtype=np.float64))
            profile[name][held] = chosen
        chosen = one_hot(post_q)
        changed |= not np.array_equal(chosen, local.rows)
        local.rows = chosen
        if not changed:
            return
    raise RuntimeError("the best response's passes did not settle")


def play_base(kernel, table: LocalPost, rows: np.ndarray, back: np.ndarray) -> None:
    """Set ``table``'s local rows of the classes ``rows`` (sorted) back to its base at each (class,
    stack) of ``back`` (len(rows), B)."""
    if not len(table.ids) or not back.any():
        return
    at = np.searchsorted(rows, table.ids // kernel.k2 // kernel.n_keys)
    inside = at < len(rows)
    inside[inside] = rows[at[inside]] == (table.ids[inside] // kernel.k2 // kernel.n_keys)
    mask = np.zeros((len(table.ids), back.shape[1]), bool)
    mask[inside] = back[at[inside]]
    if mask.any():
        table.rows = np.where(mask[:, None, :, None], base_rows(kernel, table.base, table.ids), table.rows)

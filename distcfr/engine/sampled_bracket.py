"""The sampled exploitability bracket's work, chunk by chunk (distcfr.evaluate.sampled puts the
chunks' sums together): a class's numbers depend on its own deals and rows only, so a chunk of
classes is evaluated wherever its rows lie (a sampled shard group) with the same bits."""

from __future__ import annotations

import numpy as np

from distcfr.engine.row_table import RowTable

BRACKET_CHUNK = 1 << 17  # deals evaluated together: bounds the bracket's memory at any size
BRACKET_ROW_BYTES = 1 << 26  # and responding rows copied together (they grow with the stacks)


def _one_hot(values: np.ndarray) -> np.ndarray:
    """Pure strategy picking the largest value over the last axis."""
    return (np.arange(values.shape[-1]) == values.argmax(-1)[..., None]).astype(np.float64)


def best_response(game, profile: dict[str, np.ndarray], deals: np.ndarray, player: int) -> None:
    """Set ``player``'s rows in ``profile`` of the classes it holds in ``deals`` (grouped by that
    class, in class order) to a best response to the other player's rows on these deals, block by
    block in the kernel's ``response_order`` (draw27: the draws, then push / call given them). A
    class's values depend on its own rows only, so classes can be done in any groups."""
    h = game.hand
    ids = game.classes.classify(deals[:, player * h:(player + 1) * h])[0]
    held, counts = np.unique(ids, return_counts=True)
    if (np.diff(ids) < 0).any():
        raise ValueError("best_response needs deals grouped by the player's class, in class order")
    for name in game.response_order[player]:
        got = game.class_sums(profile, deals, player, counts)[name]  # rows: the classes held
        profile[name][held] = _one_hot(got.q)


def bracket_chunks(game, per_class: int) -> list[tuple[int, int]]:
    """The class ranges a bracket evaluates together (their deal streams are keyed by the first):
    at most ``BRACKET_CHUNK`` deals, and at most ``BRACKET_ROW_BYTES`` of the responding player's
    float16 rows (the best response's copy: 15 kB per class at 39 stacks of 5 cards)."""
    row_bytes = max(sum(int(np.prod(b.shape)) * 2 for b in game.blocks if b.player == p) for p in (0, 1))
    step = max(1, min(BRACKET_CHUNK // per_class, BRACKET_ROW_BYTES // row_bytes))
    return [(first, min(first + step, game.n_classes)) for first in range(0, game.n_classes, step)]


def bracket_chunk(game, sigma: dict, seed: int, per_class: int, player: int, first: int,
                  stop: int) -> np.ndarray:
    """(6, B): what classes [first, stop) of ``player`` add to the bracket's sums: the hand-weighted
    mean and variance of its best response's in-sample value, of the same best response scored on
    independent deals, and (player 0) of the profile's own value. ``sigma`` holds the average
    strategy's tables (arrays or RowTables); a class's numbers depend on its own deals and rows only,
    so chunks can be evaluated anywhere, in any groups."""
    weights = game.classes.hands_per_class[first:stop, None] / game.classes.hands_per_class.sum()
    rows = np.arange(first, stop)
    responder = {b.name: RowTable([first, stop], [sigma[b.name][rows]])  # (a gather: a copy)
                 for b in game.blocks if b.player == player}  # overwritten by the best response
    profile = {**sigma, **responder}
    choose, score = (game.sample_deals_of_classes(seed, stream, player, first, stop, per_class)
                     for stream in (2 * player, 2 * player + 1))
    best_response(game, profile, choose, player)
    parts = [game.class_deal_values(profile, choose, player, per_class),
             game.class_deal_values(profile, score, player, per_class)]
    if player == 0:
        parts.append(game.class_deal_values(sigma, score, player, per_class))
    out = np.zeros((6, len(game.stacks)))
    for i, values in enumerate(parts):
        by_class = values.reshape(-1, per_class, values.shape[-1])  # (classes, per_class, B)
        out[2 * i] = (weights * by_class.mean(1)).sum(0)
        if per_class > 1:
            out[2 * i + 1] = (weights**2 * by_class.var(1, ddof=1)).sum(0) / per_class
    return out


def chunk_total(parts) -> np.ndarray:
    """The sum of chunks' (6, B) contributions, in chunk order (the same bits wherever they were made)."""
    total = 0.0
    for part in parts:
        total = total + part
    return total

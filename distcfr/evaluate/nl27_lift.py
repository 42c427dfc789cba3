"""An nl27 strategy of an abstract game (``draw=rule``, ``post=value`` or N buckets) played in the
perfect-recall game (``draw=all``, ``post=recall``): what the abstraction costs is the lifted
strategy's exploitability there, computed exactly.

The lift: a hand drawing k by the rule discards its rule mask of k (``rule_masks``) with the count's
probability; a (hand, cards received) state past the draw plays its key's row (the key of the final
hand the full game's discard made), or its own row where the abstract game keeps perfect recall.
Both games share chance and payoffs, so the lifted strategy has the abstract strategy's value.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.engine.ranges import keyed_best_response_values
from distcfr.evaluate.strategy import Strategy
from distcfr.games.nl27 import Nl27, draw_count
from distcfr.games.nl27_cards import Nl27Cards
from distcfr.games.tree import TERMINAL


def full_game(abstract: Nl27) -> Nl27:
    """The perfect-recall game of the same deck, stacks and betting."""
    game = Nl27(dataclasses.replace(abstract.params, draw="all", post="recall"))
    game.validate()
    return game


def lift_strategy(abstract_game: Nl27, strategy: Strategy) -> tuple[Nl27, Strategy]:
    """(the perfect-recall game, ``strategy`` of ``abstract_game`` played in it)."""
    full = full_game(abstract_game)
    layout, abstract = Layout(full), strategy.layout
    cards, params = Nl27Cards.of(full), abstract_game.params
    starts = {key: start for key, start in zip(_group_keys(abstract), _group_starts(abstract))}
    probs = np.zeros((layout.n_variants, layout.n_infosets, layout.max_actions))  # (B, n_is, A)
    tree, done = full.tree, set()
    for node in np.flatnonzero(tree.player != TERMINAL):
        history, player = tree.histories[node], int(tree.player[node])
        start = int(layout.node_offset[node])
        if start in done:
            continue
        done.add(start)
        seen = tuple(f"n{draw_count(c)}" if c[0] == "d" and params.draw == "rule" else c for c in history)
        target = starts[(player, abstract_game.observation(seen, player))] + _abstract_rows(
            abstract_game, full, cards, history, player)  # (states,) abstract rows
        mine = np.arange(start, start + len(target))  # (states,) full rows
        if params.draw == "rule" and tree.action_labels[node][0] == "stand pat":
            masks = cards.rule_masks  # (n_h, H+1): the count k of hand i discards masks[i, k]
            for k in range(masks.shape[1]):
                probs[:, mine, masks[:, k]] = strategy.probs[:, target, k]
        else:
            probs[:, mine, :] = strategy.probs[:, target, :layout.max_actions]
    return full, Strategy(layout, probs)


def abstract_exploitability(strategy: Strategy) -> np.ndarray:
    """(B,) the exploitability of an abstract nl27 strategy in its own game (half the sum of both
    best responses), the responses improved round by round (``ranges.keyed_best_response_values``):
    a lower bound where keys forget cards, exact with perfect recall."""
    return keyed_best_response_values(strategy.layout, strategy.probs).sum(axis=0) / 2


def _abstract_rows(abstract: Nl27, full: Nl27, cards: Nl27Cards, history, player: int) -> np.ndarray:
    """(states of ``player`` at ``history`` in the full game,) int64: each state's row within its
    abstract information-set group."""
    n_states = full.state_count(history, player)
    code = full.own_draw_code(history, player)
    if code is None or abstract.params.post == "recall":
        return np.arange(n_states)  # the same hands, or the same (hand, received) states
    return cards.state_keys(cards.final_ranks_of(code), abstract.params.post)


def _group_keys(layout: Layout) -> list[tuple[int, str]]:
    return [(g.player, g.observation) for g in layout.groups]


def _group_starts(layout: Layout) -> np.ndarray:
    sizes = np.array([len(g.private_labels) for g in layout.groups])
    return np.cumsum(sizes) - sizes

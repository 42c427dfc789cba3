"""draw27's strategy tables: push range, call range and draws per hand, as players read them, and
for a list of stacks push / call per hand class across the stacks."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from distcfr.cards import RANKS
from distcfr.games.table import Table, prob_lookup


def push_call_draw_table(game, strategy, variant: int) -> list[Table]:
    """Push range, call range and draw choice per hand (or per rank class of hands)."""
    hands, labels, by_class = _hand_classes(game)
    h = game.params.hand
    draw_counts = range(h + 1)
    p = prob_lookup(strategy, variant)
    columns = ["push", "call", "BB draws"] + [f"BTN draws, BB drew {k}" for k in draw_counts]
    title = "per hand" if h == 1 or len(by_class) == len(hands) else "per hand class (suits averaged)"
    table = Table(f"push range, call range and draws, {title}", columns)
    order = sorted(by_class, key=lambda c: [-RANKS.index(x) for x in c])
    for cls in order:
        members = by_class[cls]
        push = float(np.mean([p(f"{labels[i]}|", "push") for i in members]))
        call = float(np.mean([p(f"{labels[i]}|a", "call") for i in members]))
        # a draw the hand (almost) never reaches (pushes or calls < 0.5%) is left blank
        cells = [push, call, _draw_choice(strategy, variant, hands, labels, members, "ac") if call >= 0.005 else None]
        cells += [_draw_choice(strategy, variant, hands, labels, members, f"ac{k}") if push >= 0.005 else None
                  for k in draw_counts]
        table.rows.append((cls, cells))
    return [table]


def push_call_summary(game, strategy) -> list[Table]:
    """Push / call per hand class (rows) and stack (columns), in whole percents (``98/100``)."""
    hands, labels, by_class = _hand_classes(game)
    probs, index = strategy.probs, strategy.layout.label_index  # probs: (V, n_infosets, max_actions)

    def mean(infoset: str, action: int, members: list[int]) -> np.ndarray:
        """(V,) the probability of ``action`` averaged over the class's hands, per stack."""
        return probs[:, [index[f"{labels[i]}{infoset}"] for i in members], action].mean(axis=1)

    push_at = strategy.layout.action_labels[index[f"{labels[0]}|"]].index("push")
    call_at = strategy.layout.action_labels[index[f"{labels[0]}|a"]].index("call")
    title = "per hand" if game.params.hand == 1 or len(by_class) == len(hands) else "per hand class (suits averaged)"
    table = Table(f"push / call in % of hands, {title} (rows) x stack (columns)", list(game.variant_labels))
    for cls in sorted(by_class, key=lambda c: [-RANKS.index(x) for x in c]):
        push, call = mean("|", push_at, by_class[cls]), mean("|a", call_at, by_class[cls])
        table.rows.append((cls, [f"{100 * a:.0f}/{100 * b:.0f}" for a, b in zip(push, call)]))
    return [table]


def _hand_classes(game):
    """(hands (n, H), their labels, {hand class (ranks, high first): hand indices})."""
    hands = game.hands()  # (n_hands, H)
    labels = [game.hand_label(hand) for hand in hands]
    by_class = defaultdict(list)
    for i, hand in enumerate(hands):
        by_class["".join(sorted((_rank(c) for c in hand), key=RANKS.index, reverse=True))].append(i)
    return hands, labels, by_class


def _rank(card) -> str:
    return RANKS[int(card) // 4]


def _draw_choice(strategy, variant, hands, labels, members, observation) -> str:
    """The most played draw over a hand class, as the ranks it throws away, with its weight."""
    weights = defaultdict(float)
    for i in members:
        probs = strategy.action_probs(f"{labels[i]}|{observation}", variant)
        for j, prob in enumerate(probs.values()):
            dropped = [_rank(hands[i][b]) for b in range(hands.shape[1]) if j >> b & 1]
            dropped = sorted(dropped, key=RANKS.index, reverse=True)
            weights["pat" if not dropped else "-" + "".join(dropped)] += prob / len(members)
    choice = max(weights, key=weights.get)
    return choice if weights[choice] > 0.995 else f"{choice} {weights[choice]:.0%}"

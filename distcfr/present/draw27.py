"""A sampled draw27 strategy as people read it: per stack its stored evaluation and hand-group
table (:mod:`distcfr.present.lowball_groups`), one hand's whole strategy, and the same as JSON."""

from __future__ import annotations

import numpy as np

from distcfr.errors import BadParameter
from distcfr.present.lowball_groups import group_report, render_groups


def stack_indices(strategy, stack: float | None) -> list[int]:
    """The stacks ``show`` prints: all, or the one equal to ``stack`` (BadParameter naming the file's
    stacks when it has none such)."""
    stacks = strategy.kernel.stacks
    if stack is None:
        return list(range(len(stacks)))
    found = np.flatnonzero(np.isclose(stacks, stack))
    if not len(found):
        shown = ", ".join(f"{s:g}" for s in stacks[:12]) + (", ..." if len(stacks) > 12 else "")
        raise BadParameter(f"this file has no stack of {stack:g} BB (it has {shown})")
    return [int(found[0])]


def _only(report: dict, keep: list[int]) -> dict:
    return report | {"stacks": [report["stacks"][v] for v in keep]}


def class_strategy_text(strategy, path, hand: str | None = None, stack: float | None = None) -> str:
    """A sampled strategy as ``show`` prints it: per stack (or the one ``stack``) its stored
    evaluation, how often the button pushes and the big blind calls (over all dealt hands) and
    its hand-group table (:mod:`distcfr.present.lowball_groups`), and with ``hand`` that hand's
    whole strategy."""
    game, meta = strategy.game, strategy.meta
    keep = stack_indices(strategy, stack)
    lines = [f"{path}: {game.spec}, sampled {meta.get('algorithm', '?')} after {meta.get('iterations', 0)} "
             f"iterations, {meta.get('deals', 0):,} deals"]
    if hand:  # the hand asked for first, then its context
        lines.append(hand_strategy(strategy, hand, keep) + "\n")
    lines.append(render_groups(_only(group_report(strategy), keep)))
    return "\n".join(lines)


def class_strategy_json(strategy, stack: float | None = None) -> dict:
    """A sampled strategy as plain dicts for ``show --format json``: the game, the file's meta
    (without its evaluation), the stored evaluation per stack, and the hand groups per stack
    (:func:`~distcfr.present.lowball_groups.group_report`); with ``stack``, that stack's only."""
    keep = stack_indices(strategy, stack)
    meta = {key: value for key, value in strategy.meta.items() if key != "evaluation"}
    evaluation = strategy.meta.get("evaluation") or []
    return {"game": strategy.game.spec, "mode": "sampled", "meta": meta,
            "evaluation": [evaluation[v] for v in keep if v < len(evaluation)],
            "hand_groups": _only(group_report(strategy), keep)}


def hand_strategy(strategy, text: str, stacks: list[int] | None = None) -> str:
    """One hand's full strategy, per stack (those at ``stacks``, default all): push, call, the big
    blind's draw and the button's draw after each big-blind draw count, every discard played at
    least 0.5% of the time, written as the cards thrown."""
    from distcfr.cards import format_cards

    kernel = strategy.kernel
    cards = kernel.classes.parse_hand(text, "--hand")
    (cls,), (canonical,) = kernel.classes.classify(cards[None])
    t = strategy.tables
    lines = [f"{format_cards(cards)} (class {kernel.classes.label(int(cls))})"]

    def draws(probs) -> str:
        order = np.argsort(-probs, kind="stable")  # every discard it plays, most played first
        parts = []
        for mask in order:
            if probs[mask] < 0.005:
                break
            thrown = [canonical[j] for j in range(kernel.hand) if mask >> j & 1]
            parts.append(f"{'pat' if not thrown else 'throw ' + format_cards(thrown)} {probs[mask]:.0%}")
        return ", ".join(parts)

    labels = strategy.game.variant_labels
    for v in range(len(labels)) if stacks is None else stacks:
        label = labels[v]
        lines.append(f"  {label}: push {t['btn_push'][cls, v, 1]:.0%}, call {t['bb_call'][cls, v, 1]:.0%}; "
                     f"big blind draws: {draws(t['bb_draw'][cls, v])}")
        for k in range(kernel.hand + 1):
            lines.append(f"      button after the big blind drew {k}: {draws(t['btn_draw'][cls, k, v])}")
    return "\n".join(lines)

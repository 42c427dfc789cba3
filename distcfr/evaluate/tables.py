"""Every strategy table of a strategy, per variant, headed by its value and exploitability
(the tables themselves are the game's: ``Game.tables``)."""

from __future__ import annotations


def render_tables(strategy) -> str:
    """Every table of every variant, each headed by the exploitability of the strategy."""
    out = []
    expl = strategy.exploitability_per_variant()
    game = strategy.game
    for v, label in enumerate(game.variant_labels):
        tables = game.tables(strategy, v)
        if not tables:
            continue
        head = f"{game.spec}" + (f", stack {label}" if label else "")
        out.append(f"== {head}: value {strategy.value(v):+.6f}, exploitability {expl[v]:.3e} ==")
        out.extend(t.render() + "\n" for t in tables)
    return "\n".join(out)

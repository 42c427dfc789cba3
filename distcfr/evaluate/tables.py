"""Strategy tables the way each game's players read them (the write-ups' own layouts)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from distcfr.cards import RANKS


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[tuple[str, list]] = field(default_factory=list)  # (row label, cells: float | str | None)

    def render(self) -> str:
        cells = [[_cell(v) for v in values] for _, values in self.rows]
        label_width = max([len(r) for r, _ in self.rows] + [0])
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(self.columns)]
        lines = [self.title, " " * label_width + "  " + "  ".join(c.rjust(w) for c, w in zip(self.columns, widths))]
        for (label, _), row in zip(self.rows, cells):
            lines.append(label.rjust(label_width) + "  " + "  ".join(v.rjust(w) for v, w in zip(row, widths)))
        return "\n".join(lines)


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def tables_for(strategy, variant: int = 0) -> list[Table]:
    """The tables of ``strategy``'s game (empty for a game without a known layout)."""
    maker = _MAKERS.get(strategy.game.name)
    return maker(strategy, variant) if maker else []


def render_tables(strategy) -> str:
    """Every table of every variant, each headed by the exploitability of the strategy."""
    out = []
    expl = strategy.exploitability_per_variant()
    for v, label in enumerate(strategy.game.variant_labels):
        tables = tables_for(strategy, v)
        if not tables:
            continue
        head = f"{strategy.game.spec}" + (f", stack {label}" if label else "")
        out.append(f"== {head}: value {strategy.value(v):+.6f}, exploitability {expl[v]:.3e} ==")
        out.extend(t.render() + "\n" for t in tables)
    return "\n".join(out)


def _p(strategy, variant, label, action) -> float:
    return strategy.action_probs(label, variant)[action]


def _kuhn(strategy, variant):
    p = lambda label, action: _p(strategy, variant, label, action)  # noqa: E731
    first = Table("player 1", ["check", "bet", "fold after check-bet", "call after check-bet"])
    second = Table("player 2", ["check after check", "bet after check", "fold to bet", "call bet"])
    for card in "JQK":
        first.rows.append((card, [p(f"{card}|", "check"), p(f"{card}|", "bet"),
                                  p(f"{card}|pb", "fold"), p(f"{card}|pb", "call")]))
        second.rows.append((card, [p(f"{card}|p", "check"), p(f"{card}|p", "bet"),
                                   p(f"{card}|b", "fold"), p(f"{card}|b", "call")]))
    return [first, second]


def _minipoker(strategy, variant):
    ranks = strategy.game.rank_labels[::-1]
    p = lambda label, action: _p(strategy, variant, label, action)  # noqa: E731
    tables = []
    for who, bet_at, facing_bet, facing_raise in (("A (first to act)", "", "kb", "br"),
                                                   ("B (second to act)", "k", "b", "kbr")):
        table = Table(f"player {who}", [("10" if r == "T" else r) for r in ranks])
        bet, cont, raise_, call_raise = [], [], [], []
        for r in ranks:
            bet.append(p(f"{r}|{bet_at}", "bet"))
            go_on = 1 - p(f"{r}|{facing_bet}", "fold")
            cont.append(go_on)
            raise_.append(p(f"{r}|{facing_bet}", "raise") / go_on if go_on > 1e-12 else None)
            call_raise.append(p(f"{r}|{facing_raise}", "call"))
        table.rows = [("Bet", bet), ("Continue", cont), ("Raise", raise_), ("Call Raise", call_raise)]
        tables.append(table)
    return tables


def _community13(strategy, variant):
    p = lambda label, action: _p(strategy, variant, label, action)  # noqa: E731
    spots = (("player 1 bets first", "", "bet"), ("player 1 calls after check-bet", "pb", "call"),
             ("player 2 bets after a check", "p", "bet"), ("player 2 calls a bet", "b", "call"))
    if strategy.game.params.board == "hidden":
        table = Table("probability per private card (board hidden)", [s[0] for s in spots])
        table.rows = [(r, [p(f"{r}|{h}", a) for _, h, a in spots]) for r in RANKS]
        return [table]
    tables = []
    for title, history, action in spots:
        table = Table(f"{title}: private card (rows) x community card (columns)", list(RANKS))
        table.rows = [(own, [p(f"{own}/{board}|{history}", action) if own != board else None
                             for board in RANKS]) for own in RANKS]
        tables.append(table)
    return tables


def _draw27(strategy, variant):
    game = strategy.game
    hands = game.hands()  # (n_hands, H)
    h = game.params.hand
    labels = [game.hand_label(hand) for hand in hands]
    by_class = defaultdict(list)  # hand class (ranks, high first) -> hand indices
    for i, hand in enumerate(hands):
        by_class["".join(sorted((_rank(c) for c in hand), key=RANKS.index, reverse=True))].append(i)
    draw_counts = range(h + 1)
    columns = ["push", "call", "BB draws"] + [f"BTN draws | BB drew {k}" for k in draw_counts]
    title = "per hand" if h == 1 or len(by_class) == len(hands) else "per hand class (suits averaged)"
    table = Table(f"push range, call range and draws, {title}", columns)
    order = sorted(by_class, key=lambda c: [-RANKS.index(x) for x in c])
    for cls in order:
        members = by_class[cls]
        push = float(np.mean([_p(strategy, variant, f"{labels[i]}|", "push") for i in members]))
        call = float(np.mean([_p(strategy, variant, f"{labels[i]}|a", "call") for i in members]))
        # a draw the hand (almost) never reaches (pushes or calls < 0.5%) is left blank
        cells = [push, call, _draw_choice(strategy, variant, hands, labels, members, "ac") if call >= 0.005 else None]
        cells += [_draw_choice(strategy, variant, hands, labels, members, f"ac{k}") if push >= 0.005 else None
                  for k in draw_counts]
        table.rows.append((cls, cells))
    return [table]


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


_MAKERS = {"kuhn": _kuhn, "minipoker": _minipoker, "community13": _community13, "draw27": _draw27}

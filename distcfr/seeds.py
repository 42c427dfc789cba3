"""python -m distcfr.seeds: the four write-ups of docs/SEEDS.md, each table in the write-up's own
layout beside distcfr's exact figures (and exploitability), printed as Markdown and written
as JSON and Markdown.

Write-ups (NAME is the file stem; the short names are aliases):
  simplified13_cfr     (community13)  Rand / CFR1 / CFR2 / CFR3 match matrix: exact values,
                                      1,000,000 simulated games per cell with 95% intervals,
                                      each bot's exploitability, both board options and
                                      which one the write-up's numbers fit
  kuhn_cfr             (kuhn)         the strategy matrices, the 1/18 value and where the
                                      solution sits in Kuhn's family of equilibria
  minipoker_annealing  (minipoker)    both annealing tables scored (best responses, NashConv,
                                      exploitability) beside the exact equilibrium in the
                                      Bet / Continue / Raise / Call Raise layout
  pushfold_2to7        (draw27)       the 3 BB solution as [cards]_[history] infosets, the
                                      value-vs-stack curve and the break-even stack, and the
                                      button's value with betting (nl27) beside it to 20 BB

Examples:
  python -m distcfr.seeds                              # all four (a few minutes)
  python -m distcfr.seeds kuhn_cfr
  python -m distcfr.seeds simplified13_cfr --json s13.json --markdown s13.md
  python -m distcfr.seeds minipoker --quick            # smaller settings, seconds
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field

import numpy as np

from distcfr.cards import RANKS
from distcfr.cli import OneLineParser, whole_number
from distcfr.engine.rules import RULES
from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.break_even import crossings, refine_crossings
from distcfr.evaluate.simulate import simulate
from distcfr.evaluate.strategy import Strategy
from distcfr.games.nl27_cards import Nl27Cards
from distcfr.games.registry import load_game
from distcfr.io.paths import check_writable, write_atomic
from distcfr.present.plots import require_matplotlib, save_betting_plot
from distcfr.solve.solver import Solver


@dataclass
class Report:
    """One write-up reproduced: Markdown to print and save, numbers for JSON."""

    name: str
    lines: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    @property
    def markdown(self) -> str:
        return "\n".join(self.lines).rstrip() + "\n"


def md_table(header: list[str], rows: list[list], align: str = "---") -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join([f" {align} "] * len(header)) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def solve(game, target: float, iterations: int = 100_000, algorithm: str = "auto") -> Strategy:
    with Solver(game, algorithm=algorithm) as solver:
        return solver.solve(target_exploitability=target, iterations=iterations)


def _scores(strategy: Strategy, variant: int = 0) -> dict:
    br1, br2 = strategy.best_response_values(variant)
    return {"value": strategy.value(variant), "best_response": [br1, br2], "nash_conv": br1 + br2,
            "exploitability": (br1 + br2) / 2}


# ---- simplified13_cfr.md ---------------------------------------------------------------------------
WRITEUP_13_BOTS = {"Rand": 0, "CFR1": 100, "CFR2": 10_000, "CFR3": 1_000_000}  # the write-up's iterations
WRITEUP_13 = {  # (row, column) -> chips won per game by the row bot, player 1, over 1,000,000 games
    ("Rand", "Rand"): 0.000902,
    ("CFR1", "Rand"): -0.235421, ("CFR1", "CFR1"): -0.007219,
    ("CFR2", "Rand"): 0.019710, ("CFR2", "CFR1"): 0.125138, ("CFR2", "CFR2"): 0.000522,
    ("CFR3", "Rand"): 0.008765, ("CFR3", "CFR1"): 0.070699, ("CFR3", "CFR2"): 0.007931, ("CFR3", "CFR3"): 0.000375,
}
WRITEUP_GAMES = 1_000_000


def simplified13_cfr(quick: bool = False, games: int | None = None, seed: int = 0) -> Report:
    games = games or (20_000 if quick else WRITEUP_GAMES)
    names = list(WRITEUP_13_BOTS)
    cells = list(WRITEUP_13)
    r = Report("simplified13_cfr")
    r.add("# simplified13_cfr.md: CFR bots on 13-card simplified poker", "")
    r.add("The write-up's table: chips won per game by the row bot (player 1) against the column bot "
          "(player 2), 1,000,000 sampled games per cell:", "")
    r.add(*_lower_triangle(names, lambda a, b: f"{WRITEUP_13[a, b]:+.6f}"))
    deals = len(load_game("community13").deals()[1])
    iterations = {name: max(1, round(n / deals)) if n else 0 for name, n in WRITEUP_13_BOTS.items()}
    r.add(f"One of the write-up's iterations samples one game (one deal) and updates the infosets on its "
          f"path. One distcfr iteration updates every infoset with all {deals:,} deals at once, weighted by "
          f"their probability: the expectation of {deals:,} sampled iterations, without their noise. So "
          f"distcfr's bots here are vanilla CFR (the write-up's rule) run for the same number of deals "
          f"visited: " + ", ".join(f"{n} = {WRITEUP_13_BOTS[n]:,} / {deals:,} ~ {iterations[n]} iteration"
                                   f"{'s' if iterations[n] > 1 else ''}" for n in names[1:])
          + ". CFR1 rounds up to one iteration, whose average strategy is the uniform one it starts from: "
          "the write-up's CFR1 has met at most 100 of the deals once each, and most of its infosets never.", "")
    r.data.update(writeup={f"{a} vs {b}": v for (a, b), v in WRITEUP_13.items()}, deals=deals,
                  writeup_iterations=WRITEUP_13_BOTS, distcfr_iterations=iterations, games_per_cell=games,
                  boards={})
    rng = np.random.default_rng(seed)
    readings = {}  # reading -> {cell: (expected, z)}
    for board in ("visible", "hidden"):
        game = load_game(f"community13(board={board})")
        bots = {}
        with Solver(game, algorithm="cfr") as solver:
            bots["Rand"] = solver.current_strategy()
            for name in names[1:]:
                while solver.iteration < iterations[name]:
                    solver.step()
                bots[name] = solver.average_strategy()
        equilibrium = solve(game, 1e-6 if quick else 1e-9)
        layout = bots["Rand"].layout
        exact = {(a, b): bots[a].head_to_head(bots[b]) for a in names for b in names}
        sims = {(a, b): simulate(layout, bots[a].probs, bots[b].probs, games, rng)
                for a in names for b in names if (a, b) in WRITEUP_13 or (b, a) in WRITEUP_13}
        both = {(a, b): (exact[a, b] - exact[b, a]) / 2 for a, b in cells}
        readings[f"board={board}, row bot as player 1"] = _z_scores(exact, sims, cells, False)
        readings[f"board={board}, bots swap seats"] = _z_scores(both, sims, cells, True)
        scores = {name: _scores(bot) for name, bot in bots.items()}
        where = "face up before the betting" if board == "visible" else "face down until the showdown"
        r.add(f"## board={board}: the community card {where}", "",
              f"Game value (player 1): {equilibrium.value():+.6f} (exploitability of the solution "
              f"{equilibrium.exploitability():.1e}).", "")
        r.add("distcfr, exact expected values (every deal), row bot as player 1:", "")
        r.add(*_lower_triangle(names, lambda a, b, exact=exact: f"{exact[a, b]:+.6f}"))
        r.add(f"distcfr, {games:,} simulated games per cell, mean and 95% interval:", "")
        r.add(*_lower_triangle(names, lambda a, b, sims=sims: f"{sims[a, b].mean:+.4f} [{sims[a, b].ci95[0]:+.4f}, "
                                                   f"{sims[a, b].ci95[1]:+.4f}]"))
        r.add("Exact, averaged over both seats (the row bot plays half its games as player 2):", "")
        r.add(*_lower_triangle(names, lambda a, b, both=both: f"{both[a, b]:+.6f}"))
        r.add(*md_table(["bot", "distcfr iterations", "exploitability", "best response of player 1 / 2",
                         "self-play value"],
                        [[n, iterations[n], f"{scores[n]['exploitability']:.4f}",
                          f"{scores[n]['best_response'][0]:+.4f} / {scores[n]['best_response'][1]:+.4f}",
                          f"{scores[n]['value']:+.4f}"] for n in names]))
        r.data["boards"][board] = {
            "game_value": equilibrium.value(), "game_value_exploitability": equilibrium.exploitability(),
            "bots": scores,
            "exact": {f"{a} vs {b}": exact[a, b] for a in names for b in names},
            "exact_both_seats": {f"{a} vs {b}": both[a, b] for a, b in cells},
            "simulated": {f"{a} vs {b}": {"simulated_ev": s.mean, "stderr": s.stderr, "ci95": list(s.ci95),
                                          "games": s.games} for (a, b), s in sims.items()}}
    chi2 = {k: sum(z * z for _, z in cells_z.values()) for k, cells_z in readings.items()}
    best = min(chi2, key=chi2.get)
    r.data.update(fit={k: {"chi2": chi2[k], "z": {f"{a} vs {b}": z for (a, b), (_, z) in v.items()}}
                       for k, v in readings.items()}, best_fit=best)
    r.add("## Which board the write-up's numbers fit", "",
          "Each write-up cell against distcfr's exact value under four readings of the table (board visible "
          "or hidden; the row bot always player 1, as the write-up says, or the bots swapping seats game by "
          "game), as z: the difference in standard errors of 1,000,000 games (the spread measured in the "
          "simulations above). Chi-square over the 10 cells is about 10 +- 4.5 for a reading that fits.", "")
    keys = list(readings)
    rows = [[f"{a} vs {b}", f"{WRITEUP_13[a, b]:+.6f}"]
            + [f"{readings[k][a, b][0]:+.4f} ({readings[k][a, b][1]:+.0f})" for k in keys] for a, b in cells]
    rows.append(["chi-square", ""] + [f"{chi2[k]:,.0f}" for k in keys])
    r.add(*md_table(["cell", "write-up"] + keys, rows))
    z = {k: {cell: zz for cell, (_, zz) in v.items()} for k, v in readings.items()}
    fixed_v, fixed_h = "board=visible, row bot as player 1", "board=hidden, row bot as player 1"
    value = {b: round(r.data["boards"][b]["game_value"], 4) + 0.0 for b in ("visible", "hidden")}
    beats_rand = {b: r.data["boards"][b]["exact_both_seats"]["CFR3 vs Rand"] for b in ("visible", "hidden")}
    r.add(f"* Seats: a uniform bot as player 1 wins 0.125 per game from folds alone (bet-fold 1/4 of the time, "
          f"check-bet-fold 1/8) on either board; the write-up's Rand vs Rand {WRITEUP_13['Rand', 'Rand']:+.6f} "
          f"is {abs(z[fixed_v]['Rand', 'Rand']):.0f} standard errors from that and "
          f"{abs(z['board=visible, bots swap seats']['Rand', 'Rand']):.1f} from the 0 of bots that swap seats.",
          f"* Board: with fixed seats the diagonal CFR3 vs CFR3 is about the game value, {value['visible']:+.4f} "
          f"with the board visible and {value['hidden']:+.4f} hidden; the write-up's "
          f"{WRITEUP_13['CFR3', 'CFR3']:+.6f} is {abs(z[fixed_v]['CFR3', 'CFR3']):.0f} standard errors from the "
          f"first and {abs(z[fixed_h]['CFR3', 'CFR3']):.1f} from the second: the hidden board. With swapped seats "
          "every diagonal cell is 0 on both boards and says nothing.",
          f"* Against Rand a CFR bot of {iterations['CFR3']} iterations wins {beats_rand['visible']:+.3f} "
          f"(visible) or {beats_rand['hidden']:+.3f} (hidden) per game "
          f"over both seats, more as player 1; the write-up's CFR3 wins {WRITEUP_13['CFR3', 'Rand']:+.4f}. No "
          "reading reproduces the Rand column (its author notes CFR3 sometimes even loses to Rand), so its "
          "bots were far from the CFR strategies of either game.",
          f"* Overall (chi-square) the closest reading is **{best}**, and none fits: the diagonal points to "
          "the hidden board (the reading the write-up states, row bot as player 1), Rand vs Rand to swapped "
          "seats.", "")
    return r


def _lower_triangle(names: list[str], cell) -> list[str]:
    rows = [[f"**{a}**"] + [cell(a, b) if j <= i else "--" for j, b in enumerate(names)]
            for i, a in enumerate(names)]
    return md_table([""] + names, rows, ":---:")


def _z_scores(expected: dict, sims: dict, cells: list, both_seats: bool) -> dict:
    """{cell: (expected value, z)}: each write-up cell against ``expected`` in standard errors of
    1,000,000 games (half in each seat when ``both_seats``), from the simulations' spread."""
    out = {}
    for a, b in cells:
        sd_ab = sims[a, b].stderr * math.sqrt(sims[a, b].games)
        if both_seats:
            sd_ba = sims[b, a].stderr * math.sqrt(sims[b, a].games)
            se = math.sqrt((sd_ab ** 2 + sd_ba ** 2) / (WRITEUP_GAMES / 2)) / 2
        else:
            se = sd_ab / math.sqrt(WRITEUP_GAMES)
        out[a, b] = (expected[a, b], (WRITEUP_13[a, b] - expected[a, b]) / se)
    return out


# ---- kuhn_cfr.md -----------------------------------------------------------------------------------
def kuhn_cfr(quick: bool = False) -> Report:
    game = load_game("kuhn")
    r = Report("kuhn_cfr")
    target, cap = (1e-4, 2_000) if quick else (1e-7, 20_000)
    ours = solve(game, target, cap, algorithm="cfr")  # the write-up's own rule: regret matching, average strategy
    r.add("# kuhn_cfr.md: Kuhn poker", "",
          f"The write-up: with an optimal strategy player 2 wins about 1/18 = {1 / 18:.6f} chips per hand.",
          f"distcfr (vanilla CFR, the write-up's rule, {ours.meta['iterations']:,} iterations, exploitability "
          f"{ours.exploitability():.1e}): player 2 wins {-ours.value():.9f} per hand "
          f"(1/18 {'+' if -ours.value() >= 1 / 18 else '-'} {abs(-ours.value() - 1 / 18):.1e}).", "")
    p1, p2 = _kuhn_matrices(ours)
    r.add("The write-up's matrices (row 0 jack, 1 queen, 2 king):", "", "```",
          "player 1: [check, bet, fold_when_bet_to_after_check, call_when_bet_to_after_check]",
          *_matrix_lines(p1), "player 2: [check_check, bet_check, bet_fold, bet_call]", *_matrix_lines(p2), "```", "")
    r.add("Where it sits in Kuhn's equilibrium family. Player 1's equilibria form one family with a "
          "parameter alpha in [0, 1/3]: bet the jack with probability alpha, the king with 3 alpha, never "
          "the queen; after check-bet call with the queen alpha + 1/3, always with the king, never with the "
          "jack. Player 2's equilibrium strategy is unique: bluff the jack after a check 1/3, call a bet with "
          "the queen 1/3, always bet and call with the king, check the queen, fold the jack. Each rule lands "
          "on its own alpha (three readings of it that agree at an equilibrium):", "")
    rows, per_rule, solutions = [], {}, {}
    for name in RULES:
        s = solutions[name] = ours if name == "cfr" else solve(game, target, cap, algorithm=name)
        fam = kuhn_family(s)
        per_rule[name] = {"iterations": s.meta["iterations"], "exploitability": s.exploitability(),
                          "value": s.value(), **fam}
        rows.append([name, f"{s.meta['iterations']:,}", f"{s.exploitability():.1e}", f"{s.value():+.9f}",
                     f"{fam['alpha_from_jack_bet']:.4f}", f"{fam['alpha_from_king_bet']:.4f}",
                     f"{fam['alpha_from_queen_call']:.4f}", f"{fam['player2_distance']:.1e}"])
    r.add(*md_table(["rule", "iterations", "exploitability", "value (player 1)", "alpha: P(bet J)",
                     "P(bet K) / 3", "P(call Q) - 1/3", "player 2: max distance from the unique strategy"], rows))
    first, second = solutions["dcfr"], solutions["pcfr+"]
    pair = {"player1": "dcfr", "player2": "pcfr+", "head_to_head": first.head_to_head(second),
            "bound": _scores(first)["nash_conv"] + _scores(second)["nash_conv"]}
    r.add(f"Two different equilibria still play to the value: dcfr's solution as player 1 against pcfr+'s as "
          f"player 2 gets {pair['head_to_head']:+.9f} (-1/18 = {-1 / 18:+.9f}; the two exploitabilities bound the "
          f"gap by {pair['bound']:.1e}).", "")
    r.data.update(expected_player2_value=1 / 18, player2_value=-ours.value(), exploitability=ours.exploitability(),
                  iterations=ours.meta["iterations"], player1_matrix=p1, player2_matrix=p2, per_rule=per_rule,
                  pair=pair)
    return r


def kuhn_family(s: Strategy) -> dict:
    """Player 1's alpha read three ways, and player 2's distance from its unique equilibrium."""
    p2_eq = {"J|p": ("bet", 1 / 3), "Q|p": ("bet", 0.0), "K|p": ("bet", 1.0),
             "J|b": ("call", 0.0), "Q|b": ("call", 1 / 3), "K|b": ("call", 1.0)}
    return {"alpha_from_jack_bet": s["J|"]["bet"], "alpha_from_king_bet": s["K|"]["bet"] / 3,
            "alpha_from_queen_call": s["Q|pb"]["call"] - 1 / 3,
            "player2_distance": max(abs(s[label][action] - p) for label, (action, p) in p2_eq.items())}


def _kuhn_matrices(s: Strategy) -> tuple[list, list]:
    p1 = [[s[f"{c}|"]["check"], s[f"{c}|"]["bet"], s[f"{c}|pb"]["fold"], s[f"{c}|pb"]["call"]] for c in "JQK"]
    p2 = [[s[f"{c}|p"]["check"], s[f"{c}|p"]["bet"], s[f"{c}|b"]["fold"], s[f"{c}|b"]["call"]] for c in "JQK"]
    return p1, p2


def _matrix_lines(matrix) -> list[str]:
    body = [" [" + ", ".join(f"{x:.4f}" for x in row) + "]" for row in matrix]
    body[0] = "[" + body[0][1:]
    return [line + ("," if i < 2 else "]") + f"   # {'JQK'[i]}" for i, line in enumerate(body)]


# ---- minipoker_annealing.md ------------------------------------------------------------------------
# the minipoker_annealing write-up (docs/SEEDS.md): columns A K Q J 10 9 8 7 6 5 4 3 2;
# rows Bet, Continue, Raise, Call Raise
MINIPOKER_TABLES = {
    "first table (500,000 tweaks)": {
        "A": [[.23, 1, .42, .38, 0, 0, 0, 0, 0, 0, 0, .25, .38],
              [1, 1, 1, 1, 1, 1, .97, .99, .13, .16, .09, 0, 0],
              [1, 1, 0, 0, 0, .07, .02, .06, .46, .04, .79, .66, 1],
              [1, 1, .09, .14, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
        "B": [[1, 1, 1, 1, .64, 0, 0, 0, 0, 0, 0, .55, 1],
              [1, 1, 1, 1, .98, .97, .97, .75, .15, .20, .07, 0, 0],
              [1, .48, 0, 0, 0, .01, .03, .15, .53, .93, .91, .89, 1],
              [1, .85, .75, .37, .09, 0, 0, 0, 0, 0, 0, 0, 0]]},
    "updated table": {
        "A": [[.10, 1, .01, .66, 0, 0, 0, 0, 0, 0, 0, .36, .19],
              [1, 1, 1, 1, 1, .52, .91, .72, .70, .10, .16, 0, 0],
              [1, 1, 0, 0, 0, .18, .01, .07, .10, .18, .22, .32, 1],
              [1, 1, .17, .20, .05, 0, 0, 0, 0, 0, 0, 0, 0]],
        "B": [[1, 1, 1, 1, .49, 0, 0, 0, 0, 0, 0, .54, 1],
              [1, 1, 1, 1, .93, .80, .67, .41, .97, .19, .11, 0, 0],
              [1, .34, 0, 0, .06, .18, .21, .05, .05, .66, .22, .97, 1],
              [1, .78, .67, .35, .33, 0, 0, 0, 0, 0, 0, 0, 0]]},
}
_MINIPOKER_SPOTS = {"A": ("", "kb", "br"), "B": ("k", "b", "kbr")}  # bet at, facing a bet, facing a raise
_MINIPOKER_ROWS = ("Bet", "Continue", "Raise", "Call Raise")


def minipoker_from_table(game, table: dict) -> Strategy:
    """A minipoker strategy from the write-up's Bet / Continue / Raise / Call Raise rows."""
    probs = {}
    for player, (bet_at, facing_bet, facing_raise) in _MINIPOKER_SPOTS.items():
        bet, cont, raise_, call_raise = table[player]
        for i, rank in enumerate(RANKS[::-1]):
            probs[f"{rank}|{bet_at}"] = {"check": 1 - bet[i], "bet": bet[i]}
            probs[f"{rank}|{facing_bet}"] = {"fold": 1 - cont[i], "call": cont[i] * (1 - raise_[i]),
                                             "raise": cont[i] * raise_[i]}
            probs[f"{rank}|{facing_raise}"] = {"fold": 1 - call_raise[i], "call": call_raise[i]}
    return Strategy.from_dict(game, probs)


def minipoker_to_table(s: Strategy) -> dict:
    """The write-up's rows of a strategy (Raise is None where the hand never continues)."""
    out = {}
    for player, (bet_at, facing_bet, facing_raise) in _MINIPOKER_SPOTS.items():
        rows = [[], [], [], []]
        for rank in RANKS[::-1]:
            go_on = 1 - s[f"{rank}|{facing_bet}"]["fold"]
            rows[0].append(s[f"{rank}|{bet_at}"]["bet"])
            rows[1].append(go_on)
            rows[2].append(s[f"{rank}|{facing_bet}"]["raise"] / go_on if go_on > 1e-9 else None)
            rows[3].append(s[f"{rank}|{facing_raise}"]["call"])
        out[player] = rows
    return out


def _annealing_layout(table: dict) -> list[str]:
    """The write-up's own fixed-width block."""
    out = []
    for player, who in (("A", "First to act"), ("B", "Second to act")):
        out.append(f"Best Strategy for {player} ({who}):")
        out.append((" " * 12 + "".join(("10" if r == "T" else r).ljust(7) for r in RANKS[::-1])).rstrip())
        for label, row in zip(_MINIPOKER_ROWS, table[player]):
            out.append(f"{label:>10}: " + "".join(" -   , " if x is None else f"{x:.2f} , " for x in row).rstrip())
        out.append("")
    return out


def minipoker_annealing(quick: bool = False) -> Report:
    game = load_game("minipoker")
    ours = solve(game, 1e-6 if quick else 1e-9)
    r = Report("minipoker_annealing")
    value = ours.value()
    r.add("# minipoker_annealing.md: mini poker, simulated annealing against an exact solution", "",
          f"Exact game value for A (first to act): {value:+.6f} per hand (distcfr {ours.meta['algorithm']}, "
          f"{ours.meta['iterations']:,} iterations, exploitability {ours.exploitability():.1e}).", "",
          "Each table scored exactly: what a best response gains against each seat of the table, NashConv "
          "(the sum) and exploitability (half of it, chips per hand):", "")
    rows, scored = [], {}
    for name, table in MINIPOKER_TABLES.items():
        s = minipoker_from_table(game, table)
        sc = _scores(s)
        scored[name] = sc
        rows.append([f"write-up, {name}", f"{sc['best_response'][0]:+.4f}", f"{sc['best_response'][1]:+.4f}",
                     f"{sc['nash_conv']:.4f}", f"{sc['exploitability']:.4f}", f"{sc['value']:+.4f}"])
    sc = _scores(ours)
    rows.append([f"distcfr, exact ({ours.meta['algorithm']})", f"{sc['best_response'][0]:+.6f}",
                 f"{sc['best_response'][1]:+.6f}", f"{sc['nash_conv']:.1e}", f"{sc['exploitability']:.1e}",
                 f"{sc['value']:+.6f}"])
    r.add(*md_table(["strategy", "best response as A (vs its B)", "best response as B (vs its A)", "NashConv",
                     "exploitability", "value for A (self-play)"], rows))
    r.add("Best responses: the first column is A's payoff best-responding to the table's B, the second B's "
          "payoff best-responding to the table's A; at an equilibrium they are the game value and its "
          "negative, and NashConv is 0.", "")
    exact_rows = minipoker_to_table(ours)
    r.add("distcfr's exact equilibrium in the write-up's layout:", "", "```", *_annealing_layout(exact_rows), "```")
    for name, table in MINIPOKER_TABLES.items():
        r.add(f"The write-up's {name}:", "", "```", *_annealing_layout(table), "```")
    r.data.update(game_value=value, equilibrium=_scores(ours) | {"table": exact_rows}, tables=scored,
                  writeup_tables=MINIPOKER_TABLES)
    return r


# ---- pushfold_2to7.md ------------------------------------------------------------------------------
def pushfold_2to7(quick: bool = False) -> Report:
    target = 1e-7 if quick else 1e-9
    r = Report("pushfold_2to7")
    at3 = solve(load_game("draw27(stacks=3)"), target)
    game = at3.game
    r.add("# pushfold_2to7.md: deuce-to-seven push/fold, one card each, 13 ranks, one suit", "",
          f"3 BB: the button's value {at3.value():+.6f} BB per hand ({1000 * at3.value():+.2f} mBB), "
          f"exploitability {at3.exploitability():.1e} BB (distcfr {at3.meta['algorithm']}, "
          f"{at3.meta['iterations']:,} iterations).", "",
          "The solution in the write-up's infoset notation `[cards]_[history]`: `rr` deals the cards, `a` is "
          "ALL_IN, `f` FOLD, a big blind that calls goes ALL_IN too (`aa`), then each post-flop action is "
          "how many cards the player draws (the big blind first; the button sees that count). Probability "
          "of each action:", "")
    infosets = pushfold_infosets(at3)
    rows = [[f"`{info}`", ", ".join(f"{a} {p:.3f}" for a, p in probs.items())] for info, probs in infosets.items()]
    r.add(*md_table(["infoset", "strategy"], rows))
    stacks = "2:5:1" if quick else "1.5:10:0.5"
    many = solve(load_game(f"draw27(stacks={stacks})"), target)
    values = many.value_per_variant
    expl = many.exploitability_per_variant()
    points = crossings(many.game.variant_values, values)
    refined = points if quick else refine_crossings(
        many.game.variant_values, points,
        lambda s: solve(many.game.with_variant_values([s]), 1e-8).value(), 1e-4)
    r.add("The button's value against the stack (BB per hand; the write-up: negative above about 3.9 BB):", "")
    r.add(*md_table(["stack (BB)", "button value (BB)", "mBB", "exploitability (BB)"],
                    [[f"{s:g}", f"{values[i]:+.6f}", f"{1000 * values[i]:+.1f}", f"{expl[i]:.1e}"]
                     for i, s in enumerate(many.game.variant_values)]))
    r.add("Break-even stack (value crosses 0): " + (", ".join(f"{p:.4f} BB" for p in refined) or "none in range")
          + ("" if quick else f" (bisection on single-stack solves to 1e-4 BB; linear interpolation gave "
             f"{', '.join(f'{p:.4f}' for p in points)})") + ".", "")
    r.data.update(stack=3.0, value=at3.value(), exploitability=at3.exploitability(), infosets=infosets,
                  curve=[{"stack": s, "value": float(values[i]), "exploitability": float(expl[i])}
                         for i, s in enumerate(many.game.variant_values)],
                  break_even=refined, break_even_interpolated=points, game=game.spec)
    _with_betting(r, quick)
    return r


BETTING_STACKS = "1.5:20:0.5"
BETTING_TARGET = 1e-4  # BB per hand (0.1 mBB): every stack's exploitability at most this
SHARE_STACKS = (3.0, 5.0, 10.0, 20.0)


def _with_betting(r: Report, quick: bool) -> None:
    """The write-up's open question: does the button still lose above ~3.9 BB once it may limp,
    open and bet after the draw (nl27 with its default betting), stack by stack to 20 BB?"""
    stacks, target = ("2:20:6", 1e-3) if quick else (BETTING_STACKS, BETTING_TARGET)
    push = solve(load_game(f"draw27(stacks={stacks})"), min(target, 1e-6))
    bet = solve(load_game(f"nl27(stacks={stacks})"), target)
    sizes = bet.game.variant_values
    pv, bv = push.value_per_variant, bet.value_per_variant
    pe, be = push.exploitability_per_variant(), bet.exploitability_per_variant()
    negative = [s for s, v in zip(sizes, bv) if v < 0]
    r.add(f"## With betting: `{bet.game.spec}`", "",
          "The same deck with limps, opens to 2.5 BB, raises to 3x and bets of half and whole pot after the draw "
          "(nl27's default betting; docs/GAMES.md). The button's value per hand beside push/fold's, each with its "
          f"exact exploitability (distcfr {bet.meta['algorithm']}, {bet.meta['iterations']:,} iterations):", "")
    r.add(*md_table(["stack (BB)", "push/fold (BB)", "with betting (BB)", "gain (mBB)", "exploitability push/fold",
                     "exploitability with betting"],
                    [[f"{x:g}", f"{pv[i]:+.5f}", f"{bv[i]:+.5f}", f"{1000 * (bv[i] - pv[i]):+.1f}", f"{pe[i]:.1e}",
                      f"{be[i]:.1e}"] for i, x in enumerate(sizes)]))
    r.add("With betting the button's value is " + (
        "negative at " + ", ".join(f"{x:g}" for x in negative) + " BB." if negative else
        f"positive at every stack from {sizes[0]:g} to {sizes[-1]:g} BB.") + "", "")
    shares = _opening_shares(bet)
    if shares:
        r.add("The button's first action, in % of its hands:", "")
        r.add(*md_table(["stack (BB)", *shares[0][1]],
                        [[f"{x:g}", *(f"{100 * p:.0f}" for p in row.values())] for x, row in shares]))
    r.data["with_betting"] = {
        "game": bet.game.spec, "iterations": bet.meta["iterations"], "negative_at": negative,
        "curve": [{"stack": x, "push_fold": float(pv[i]), "betting": float(bv[i]),
                   "exploitability_push_fold": float(pe[i]), "exploitability_betting": float(be[i])}
                  for i, x in enumerate(sizes)],
        "opening_shares": {f"{x:g}": row for x, row in shares}}


def _opening_shares(s: Strategy) -> list[tuple[float, dict]]:
    """(stack, {action: share of the button's hands}) at the stacks of SHARE_STACKS the solve holds;
    every hand is dealt equally often."""
    game, out = s.game, []
    hands = Nl27Cards.of(game).hand_labels
    for x in SHARE_STACKS:
        if x not in game.variant_values:
            continue
        v = game.variant_values.index(x)
        rows = [s.action_probs(f"{h}|", v) for h in hands]
        out.append((x, {a: float(np.mean([row[a] for row in rows])) for a in rows[0]}))
    return out


def pushfold_infosets(s: Strategy) -> dict[str, dict[str, float]]:
    """The 1-card draw27 strategy keyed by the write-up's ``[cards]_[history]`` infosets."""
    game = s.game
    if game.params.hand != 1:
        raise BadParameter("the write-up's notation is for one-card hands")
    out = {}
    hands = [game.hand_label(h) for h in game.hands()]
    spots = (("", "rr", {"fold": "FOLD", "push": "ALL_IN"}), ("a", "rra", {"fold": "FOLD", "call": "ALL_IN"}),
             ("ac", "rraa", {"stand pat": "0", "discard 1": "1"}))
    for observation, history, names in spots:
        for hand in hands:
            out[f"{hand}_{history}"] = {names[a]: p for a, p in s[f"{hand}|{observation}"].items()}
    for drawn in (0, 1):
        for hand in hands:
            probs = s[f"{hand}|ac{drawn}"]
            out[f"{hand}_rraa{drawn}"] = {{"stand pat": "0", "discard 1": "1"}[a]: p for a, p in probs.items()}
    return out


# ---- the command ---------------------------------------------------------------------------------
SEEDS = {"simplified13_cfr": simplified13_cfr, "kuhn_cfr": kuhn_cfr, "minipoker_annealing": minipoker_annealing,
         "pushfold_2to7": pushfold_2to7}
ALIASES = {"community13": "simplified13_cfr", "kuhn": "kuhn_cfr", "minipoker": "minipoker_annealing",
           "draw27": "pushfold_2to7"}


def resolve(name: str) -> str:
    name = ALIASES.get(name, name)
    if name not in SEEDS:
        raise BadParameter(f"unknown write-up {name!r} (known: {', '.join(SEEDS)}; aliases: "
                           + ", ".join(f"{a} = {b}" for a, b in ALIASES.items()) + ")")
    return name


def run(name: str, quick: bool = False, games: int | None = None, seed: int = 0) -> Report:
    name = resolve(name)
    if name == "simplified13_cfr":
        return simplified13_cfr(quick, games, seed)
    return SEEDS[name](quick)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m distcfr.seeds``."""
    parser = OneLineParser(prog="python -m distcfr.seeds", description=__doc__.split("\n\n")[0].split(": ", 1)[1],
                           epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME", help="write-ups to reproduce (default: all four)")
    parser.add_argument("--json", metavar="PATH", help="write the numbers as JSON ({NAME: {...}})")
    parser.add_argument("--markdown", metavar="PATH", help="write the printed tables as a Markdown file")
    parser.add_argument("--games", type=whole_number(2, "at least 2"), metavar="N",
                        help="simulated games per cell in simplified13_cfr (default: 1,000,000; --quick 20,000)")
    parser.add_argument("--seed", type=whole_number(0, "0 or more"), default=0, metavar="S",
                        help="random seed of the simulations (default: 0)")
    parser.add_argument("--quick", action="store_true", help="looser targets and fewer games (a smoke test)")
    parser.add_argument("--plot", metavar="PATH", help="pushfold_2to7: draw the button's value per stack, push/fold "
                        "beside betting, as a PNG (needs matplotlib)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        names = [resolve(n) for n in args.names] or list(SEEDS)
        for path in (args.json, args.markdown, args.plot):
            if path:
                check_writable(path)
        if args.plot:
            require_matplotlib()
            if "pushfold_2to7" not in names:
                raise BadParameter("--plot draws pushfold_2to7's values: name that write-up")
        reports = []
        for name in names:
            reports.append(run(name, args.quick, args.games, args.seed))
            print(reports[-1].markdown, flush=True)
        if args.json:
            write_atomic(args.json, (json.dumps({r.name: r.data for r in reports}, indent=1) + "\n").encode())
        if args.markdown:
            write_atomic(args.markdown, "\n".join(r.markdown for r in reports).encode())
        if args.plot:
            data = next(r.data for r in reports if r.name == "pushfold_2to7")
            save_betting_plot(args.plot, data["with_betting"])
    except DistcfrError as err:
        print(f"distcfr.seeds: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

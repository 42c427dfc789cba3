"""python -m distcfr.seeds: the four write-ups in seeds/, reproduced exactly and with the
exploitability of every strategy beside it.

* kuhn_cfr.md: player 2 wins 1/18 per hand; the per-card strategy matrix.
* minipoker_annealing.md: the two simulated-annealing tables, and how exploitable they are
  next to distcfr's own solution.
* simplified13_cfr.md: the match table between a random bot and CFR bots, here as exact
  expected values (not 1,000,000 sampled games), with each bot's exploitability.
* pushfold_2to7.md: the 3 BB solution and the break-even stack near 3.9 BB.
"""

from __future__ import annotations

import argparse

import numpy as np

from distcfr.cards import RANKS
from distcfr.evaluate.break_even import crossings
from distcfr.evaluate.strategy import Strategy
from distcfr.evaluate.tables import render_tables
from distcfr.games.registry import load_game
from distcfr.solve.solver import Solver

# seeds/minipoker_annealing.md, columns A K Q J 10 9 8 7 6 5 4 3 2; rows Bet, Continue, Raise, Call Raise
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


def minipoker_from_table(game, table: dict) -> Strategy:
    """A minipoker strategy from the write-up's Bet / Continue / Raise / Call Raise rows."""
    spots = {"A": ("", "kb", "br"), "B": ("k", "b", "kbr")}
    probs = {}
    for player, (bet_at, facing_bet, facing_raise) in spots.items():
        bet, cont, raise_, call_raise = table[player]
        for i, rank in enumerate(RANKS[::-1]):
            probs[f"{rank}|{bet_at}"] = {"check": 1 - bet[i], "bet": bet[i]}
            probs[f"{rank}|{facing_bet}"] = {"fold": 1 - cont[i], "call": cont[i] * (1 - raise_[i]),
                                             "raise": cont[i] * raise_[i]}
            probs[f"{rank}|{facing_raise}"] = {"fold": 1 - call_raise[i], "call": call_raise[i]}
    return Strategy.from_dict(game, probs)


def kuhn() -> None:
    strategy = Solver(load_game("kuhn")).solve(target_exploitability=1e-9, iterations=100_000)
    print("## kuhn_cfr.md: player 2 should win about 1/18 = 0.055556 per hand")
    print(f"distcfr: player 2 wins {-strategy.value():.9f} per hand, exploitability {strategy.exploitability():.1e}\n")
    print(render_tables(strategy))


def minipoker() -> None:
    game = load_game("minipoker")
    ours = Solver(game).solve(target_exploitability=1e-9, iterations=100_000)
    print("## minipoker_annealing.md: the annealing tables against an exact solution")
    print("| strategy | value for A | exploitability | best response of A / of B |")
    print("| --- | --- | --- | --- |")
    for name, table in MINIPOKER_TABLES.items():
        s = minipoker_from_table(game, table)
        br1, br2 = s.best_response_values()
        print(f"| write-up, {name} | {s.value():+.4f} | {s.exploitability():.4f} | {br1:+.4f} / {br2:+.4f} |")
    br1, br2 = ours.best_response_values()
    print(f"| distcfr ({ours.meta['algorithm']}, {ours.meta['iterations']} it.) | {ours.value():+.6f} | "
          f"{ours.exploitability():.1e} | {br1:+.6f} / {br2:+.6f} |\n")
    print(render_tables(ours))


def community13(iterations=(100, 10_000)) -> None:
    game = load_game("community13")
    bots = {"Rand": Solver(game).current_strategy()}
    for n in iterations:
        bots[f"CFR {n:,}"] = Solver(game, algorithm="cfr").solve(iterations=n)
    bots["exact"] = Solver(game).solve(target_exploitability=1e-9, iterations=100_000)
    names = list(bots)
    print("## simplified13_cfr.md: chips won per game by the row bot (player 1) against the column bot")
    print("(exact expected values over all 1,716 deals; the write-up sampled 1,000,000 games)\n")
    for title, value in (("row bot as player 1", lambda a, b: a.head_to_head(b)),
                         ("averaged over both seats", lambda a, b: (a.head_to_head(b) - b.head_to_head(a)) / 2)):
        print(f"{title}:\n\n| row \\ column | " + " | ".join(names) + " | exploitability of row |")
        print("|---" * (len(names) + 2) + "|")
        for row in names:
            cells = [f"{value(bots[row], bots[col]):+.6f}" for col in names]
            print(f"| {row} | " + " | ".join(cells) + f" | {bots[row].exploitability():.2e} |")
        print()


def draw27() -> None:
    print("## pushfold_2to7.md: 3 BB, and the break-even stack (write-up: about 3.9 BB)")
    at3 = Solver(load_game("draw27(stacks=3)")).solve(target_exploitability=1e-9, iterations=50_000)
    print(render_tables(at3))
    many = Solver(load_game("draw27(stacks=1.5:10:0.5)")).solve(
        target_exploitability=1e-9, iterations=50_000)
    points = crossings(many.game.variant_values, many.value_per_variant)
    print("| stack (BB) | button value (BB) | exploitability |\n| --- | --- | --- |")
    for i, stack in enumerate(many.game.variant_values):
        print(f"| {stack:g} | {many.value(i):+.6f} | {many.exploitability_per_variant()[i]:.1e} |")
    print(f"\nbreak-even: {', '.join(f'{p:.4f}' for p in points)} BB (interpolated between solved stacks)\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m distcfr.seeds", description=__doc__.split("\n")[0])
    parser.add_argument("which", nargs="*", choices=["kuhn", "minipoker", "community13", "draw27", []],
                        help="which write-ups (default: all)")
    args = parser.parse_args(argv)
    np.set_printoptions(precision=4)
    for name in args.which or ["kuhn", "minipoker", "community13", "draw27"]:
        {"kuhn": kuhn, "minipoker": minipoker, "community13": community13, "draw27": draw27}[name]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

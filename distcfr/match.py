"""python -m distcfr.match: play two strategies against each other, in both seats: the exact
expected value of each seat assignment and, with --games N, N simulated games per seat
with the mean and a 95% confidence interval.

A player is a strategy file (python -m distcfr.train --out, or your own bot written with
distcfr.Strategy.from_dict(...).save(...)), `random` (uniform over the legal actions), or
`train:ITERS[:ALGORITHM]` (a fresh solve of ITERS iterations, default algorithm auto).
Values are PLAYER1's winnings in chips per game (big blinds per hand for draw27).

Examples:
  python -m distcfr.match --game community13 train:300 random --games 1000000
  python -m distcfr.match mine.msgpack theirs.msgpack --games 200000 --seed 7 --json match.json
  python -m distcfr.match --game kuhn train:1000:cfr+ train:10:cfr
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from distcfr.cli import OneLineParser, whole_number
from distcfr.engine.layout import Layout
from distcfr.errors import BadFile, BadParameter, DistcfrError
from distcfr.evaluate.simulate import SimulationResult, simulate
from distcfr.evaluate.strategy import Strategy, load_strategy
from distcfr.games.registry import load_game
from distcfr.io.msgpack_io import check_writable, write_atomic
from distcfr.solve.rules import AUTO, RULES
from distcfr.solve.solver import Solver

PLAYER_HELP = "a strategy file, random, or train:ITERS[:ALGORITHM]"


@dataclass
class Player:
    name: str  # as given on the command line
    strategy: Strategy | None = None  # None for random and train until the game is known
    train: tuple[int, str] | None = None


def parse_player(text: str) -> Player:
    """A player from the command line; strategy files are read here, the rest once the game is known."""
    if text == "random":
        return Player(text)
    if text.startswith("train:"):
        parts = text.split(":")
        if len(parts) not in (2, 3) or not parts[1].isdigit() or int(parts[1]) < 1:
            raise BadParameter(f"player {text!r}: write train:ITERS[:ALGORITHM] with ITERS a positive whole number")
        algorithm = parts[2] if len(parts) == 3 else AUTO
        if algorithm not in (AUTO, *RULES):
            raise BadParameter(f"player {text!r}: unknown algorithm {algorithm!r} (known: {', '.join((AUTO, *RULES))})")
        return Player(text, train=(int(parts[1]), algorithm))
    if not Path(text).exists():
        raise BadFile(f"player {text!r}: no such strategy file (a player is {PLAYER_HELP})")
    return Player(text, load_strategy(text))


def resolve_game(spec: str | None, players: list[Player]):
    """The game of the match: --game, checked against every strategy file's own game."""
    files = [p for p in players if p.strategy is not None]
    game = load_game(spec) if spec else (files[0].strategy.game if files else None)
    if game is None:
        raise BadParameter("give --game SPEC: no player is a strategy file")
    for p in files:
        if p.strategy.game.spec != game.spec:
            raise BadParameter(f"{p.name} is a strategy of {p.strategy.game.spec}, the match is {game.spec}")
    return game


def build(player: Player, game, layout: Layout) -> Strategy:
    if player.strategy is not None:
        return player.strategy
    if player.train is None:  # random
        return Strategy(layout, layout.uniform_strategy(), meta={"algorithm": "uniform"})
    iterations, algorithm = player.train
    with Solver(game, algorithm=algorithm) as solver:
        return solver.solve(iterations=iterations)


def run_match(game, first: Strategy, second: Strategy, names: tuple[str, str], games: int | None,
              seed: int | None) -> dict:
    """Exact and simulated values of both seat assignments, per variant: the JSON summary."""
    layout = first.layout
    rng = np.random.default_rng(seed)
    seats = []
    summary = []
    for v, label in enumerate(game.variant_labels):
        sims = []
        for a, b, order in ((first, second, names), (second, first, names[::-1])):
            row = {"variant": label, "player1": order[0], "player2": order[1]}
            if game.enumerable:
                row["exact_ev"] = a.head_to_head(b, v)
            if games:
                start = time.perf_counter()
                sim = simulate(layout, a.probs, b.probs, games, rng, v)
                row.update(simulated_ev=sim.mean, stderr=sim.stderr, ci95=list(sim.ci95), games=games,
                           seconds=time.perf_counter() - start)
                sims.append(sim)
            seats.append(row)
        both = {"variant": label, "player": names[0]}
        if game.enumerable:
            both["exact_ev"] = (seats[-2]["exact_ev"] - seats[-1]["exact_ev"]) / 2
        if sims:
            sim = SimulationResult.combine(*sims)
            both.update(simulated_ev=sim.mean, stderr=sim.stderr, ci95=list(sim.ci95), games=sim.games)
        summary.append(both)
    data = {"game": game.spec, "unit": _unit(game), "players": list(names), "seed": seed, "games_per_seat": games,
            "seats": seats, "both_seats": summary}
    if len(summary) == 1:  # the first player's value over both seats, at the top
        data.update({k: summary[0][k] for k in ("exact_ev", "simulated_ev", "stderr", "ci95") if k in summary[0]})
    return data


def report(data: dict) -> str:
    unit = data["unit"]
    width = max(len(n) for n in data["players"])
    lines = [f"{data['game']}: {data['players'][0]} vs {data['players'][1]}, the seat-1 player's winnings in "
             f"{unit}" + ("" if data["games_per_seat"] is None else
                                   f"; {data['games_per_seat']:,} simulated games per seat, 95% intervals")]
    for row in data["seats"] + data["both_seats"]:
        if "player" in row:
            head = f"  {row['player']} over both seats".ljust(2 * width + 18)
        else:
            head = f"  seat 1 {row['player1']:<{width}}  seat 2 {row['player2']:<{width}}"
        if row["variant"]:
            head = f"  {row['variant']:>7}" + head
        cells = [f"exact {row['exact_ev']:+.6f}"] if "exact_ev" in row else ["exact: too large to enumerate"]
        if "simulated_ev" in row:
            low, high = row["ci95"]
            cells.append(f"simulated {row['simulated_ev']:+.6f} ± {row['stderr'] * 1.959964:.6f} "
                         f"[{low:+.6f}, {high:+.6f}]" + (f" in {row['seconds']:.2f} s" if "seconds" in row else ""))
        lines.append(head + "  " + "  ".join(cells))
    return "\n".join(lines)


def _unit(game) -> str:
    return "big blinds per hand" if game.unit == "BB" else f"{game.unit} per game"


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m distcfr.match", description=__doc__.split("\n\n")[0].split(": ", 1)[1],
                           epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("player1", metavar="PLAYER1", help=PLAYER_HELP)
    parser.add_argument("player2", metavar="PLAYER2", help=PLAYER_HELP)
    parser.add_argument("--game", metavar="SPEC", help="the game (default: the strategy files' game)")
    parser.add_argument("--games", type=whole_number(2, "at least 2"), metavar="N",
                        help="also simulate N games per seat assignment")
    parser.add_argument("--seed", type=whole_number(0, "0 or more"), default=0, metavar="S",
                        help="random seed of the simulation (default: 0)")
    parser.add_argument("--json", metavar="PATH", help="write the values as JSON (exact_ev; with --games also "
                        "simulated_ev, stderr, ci95)")
    try:
        args = parser.parse_args(argv)
        if args.json:
            check_writable(args.json)
        players = [parse_player(args.player1), parse_player(args.player2)]
        game = resolve_game(args.game, players)
        if not game.enumerable and not args.games:
            raise BadParameter(f"{game.spec} is too large for an exact value: give --games N")
        layout = next((p.strategy.layout for p in players if p.strategy is not None), None) or Layout(game)
        first, second = (build(p, game, layout) for p in players)
        data = run_match(game, first, second, (args.player1, args.player2), args.games, args.seed)
        print(report(data))
        if args.json:
            write_atomic(args.json, (json.dumps(data, indent=2) + "\n").encode())
    except DistcfrError as err:
        print(f"distcfr.match: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

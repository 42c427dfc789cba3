"""python -m distcfr.match: play two strategies against each other, in both seats: the exact
expected value of each seat assignment and, with --games N, N simulated games per seat
with the mean and a 95% confidence interval.

A player is a strategy file (python -m distcfr.train --out, or your own bot written with
distcfr.Strategy.from_dict(...).save(...)), `random` (uniform over the legal actions), or
`train:ITERS[:ALGORITHM]` (a fresh solve of ITERS iterations, default algorithm auto).
Values are PLAYER1's winnings in chips per game (big blinds per hand for draw27). A game too
large to enumerate (5-card draw27, solved with train --sampling) has no exact value: its
match is simulated only, on deals from the game's sampler, each deal scored by its exact
expectation over both players' mixed actions and the draws.
nl27 matches are exact only (no --games).

Examples:
  python -m distcfr.match --game community13 train:300 random --games 1000000
  python -m distcfr.match mine.msgpack theirs.msgpack --games 200000 --seed 7 --json match.json
  python -m distcfr.match --game kuhn train:1000:cfr+ train:10:cfr
  python -m distcfr.match five_card.msgpack random --games 100000     # sampled draw27: simulated only
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from distcfr.cli import OneLineParser, check_distinct, printable, whole_number
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.layout import Layout
from distcfr.engine.memory import check_fits, class_tables_bytes, exact_estimate
from distcfr.engine.rules import AUTO, RULES
from distcfr.errors import BadFile, BadParameter, DistcfrError
from distcfr.evaluate.class_strategy import KIND as CLASS_STRATEGY
from distcfr.evaluate.class_strategy import ClassStrategy, load_class_strategy
from distcfr.evaluate.simulate import SimulationResult, simulate, simulate_sampled
from distcfr.evaluate.strategy import Strategy, load_strategy
from distcfr.games.registry import load_game
from distcfr.io.paths import check_writable, write_atomic
from distcfr.io.schema import file_format
from distcfr.solve.solver import Solver

PLAYER_HELP = "a strategy file, random, or train:ITERS[:ALGORITHM]"


@dataclass
class Player:
    name: str  # as given on the command line
    strategy: Strategy | None = None  # None for random and train until the game is known
    train: tuple[int, str] | None = None
    sampled: ClassStrategy | None = None  # a strategy file of a sampled (5-card) draw27 solve

    @property
    def game(self):
        held = self.strategy or self.sampled
        return held.game if held is not None else None


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
    if not Path(text).is_file():
        raise BadFile(f"player {text!r}: no such strategy file (a player is {PLAYER_HELP})")
    if file_format(text) == CLASS_STRATEGY:
        return Player(text, sampled=load_class_strategy(text))
    return Player(text, load_strategy(text))


def resolve_game(spec: str | None, players: list[Player]):
    """The game of the match: --game, checked against every strategy file's own game."""
    files = [p for p in players if p.game is not None]
    game = load_game(spec) if spec else (files[0].game if files else None)
    if game is None:
        raise BadParameter("give --game SPEC: no player is a strategy file")
    for p in files:
        if p.game.spec != game.spec:
            raise BadParameter(f"{p.name} is a strategy of {p.game.spec}, the match is {game.spec}")
    return game


def build(player: Player, game, layout: Layout) -> Strategy:
    """A player of a game solved exactly, as a Strategy of ``layout``."""
    if player.strategy is not None:
        return player.strategy
    if player.sampled is not None:  # a sampled solve of a game small enough to evaluate exactly
        return Strategy(layout, player.sampled.to_exact().probs, meta=player.sampled.meta)
    if player.train is None:  # random
        return Strategy(layout, layout.uniform_strategy(), meta={"algorithm": "uniform"})
    iterations, algorithm = player.train
    with Solver(game, algorithm=algorithm) as solver:
        return solver.solve(iterations=iterations)


def sampled_tables(player: Player, kernel) -> dict:
    """A player of a game too large to enumerate, as per-class tables."""
    if player.sampled is not None:
        return player.sampled.tables
    if player.train is not None:
        raise BadParameter(f"player {player.name!r}: train: solves games small enough to enumerate; solve this one "
                           "with python -m distcfr.train --sampling and pass the file")
    return kernel.uniform()


def exact_match(game, first: Strategy, second: Strategy, names, games: int | None, seed: int) -> dict:
    """Exact values of both seat assignments and, with ``games``, simulated ones."""
    layout, rng = first.layout, np.random.default_rng(seed)
    seats = ((first, second), (second, first))
    return run_match(game, names, games, seed,
                     lambda seat, v: seats[seat][0].head_to_head(seats[seat][1], v),
                     lambda seat: [simulate(layout, seats[seat][0].probs, seats[seat][1].probs, games, rng, v)
                                   for v in range(len(game.variant_labels))])


def sampled_match(game, first: dict, second: dict, names, games: int, seed: int) -> dict:
    """Simulated values only (the game is too large for an exact one)."""
    kernel = sampled_kernel(game)
    seats = ((first, second), (second, first))
    return run_match(game, names, games, seed, lambda seat, v: None,
                     lambda seat: simulate_sampled(kernel, *seats[seat], games, seed, stream=seat))


def run_match(game, names: tuple[str, str], games: int | None, seed: int, exact_value, simulate_seat) -> dict:
    """The JSON summary: per seat assignment (seat 0: ``names[0]`` is player 1) and variant,
    ``exact_value(seat, variant)`` (None: none) and ``simulate_seat(seat)`` (one SimulationResult
    per variant), then the first player over both seats."""
    sims, seconds = {}, {}
    if games:
        for seat in (0, 1):
            start = time.perf_counter()
            sims[seat] = simulate_seat(seat)
            seconds[seat] = time.perf_counter() - start
    seats, summary = [], []
    for v, label in enumerate(game.variant_labels):
        rows = []
        for seat, order in ((0, names), (1, names[::-1])):
            row = {"variant": label, "player1": order[0], "player2": order[1]}
            value = exact_value(seat, v)
            if value is not None:
                row["exact_ev"] = value
            if games:
                sim = sims[seat][v]
                row.update(simulated_ev=sim.mean, stderr=sim.stderr, ci95=list(sim.ci95), games=games,
                           seconds=seconds[seat] / len(game.variant_labels))
            rows.append(row)
        both = {"variant": label, "player": names[0]}
        if "exact_ev" in rows[0]:
            both["exact_ev"] = (rows[0]["exact_ev"] - rows[1]["exact_ev"]) / 2
        if games:
            sim = SimulationResult.combine(sims[0][v], sims[1][v])
            both.update(simulated_ev=sim.mean, stderr=sim.stderr, ci95=list(sim.ci95), games=sim.games)
        seats += rows
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


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m distcfr.match``."""
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
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        check_distinct({"PLAYER1": args.player1, "PLAYER2": args.player2}, {"--json": args.json})
        if args.json:
            check_writable(args.json)
        players = [parse_player(args.player1), parse_player(args.player2)]
        game = resolve_game(args.game, players)
        names = (args.player1, args.player2)
        if args.games and game.exact_form == "ranges":  # no dealt cards to simulate from (nl27)
            raise BadParameter(f"{game.name} matches are exact: --games (simulated games) is not available for "
                               f"{game.name}; drop it for the exact values")
        if game.exact_size_problem() is None:
            check_fits(exact_estimate(game).this_machine, f"a match of {game.spec}")
            layout = next((p.strategy.layout for p in players if p.strategy is not None), None) or Layout(game)
            first, second = (build(p, game, layout) for p in players)
            data = exact_match(game, first, second, names, args.games, args.seed)
        else:
            if not args.games:
                raise BadParameter(f"{game.spec} is too large for an exact value: give --games N")
            kernel = sampled_kernel(game)
            check_fits(2 * class_tables_bytes(kernel), f"a match of {game.spec}")
            first, second = (sampled_tables(p, kernel) for p in players)
            data = sampled_match(game, first, second, names, args.games, args.seed)
        print(printable(report(data)))
        if args.json:
            write_atomic(args.json, (json.dumps(data, indent=2) + "\n").encode())
    except DistcfrError as err:
        print(f"distcfr.match: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

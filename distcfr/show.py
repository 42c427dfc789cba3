"""python -m distcfr.show: read a saved strategy file and print its evaluation and tables.

Examples:
  python -m distcfr.show strategy.msgpack
  python -m distcfr.show mine.msgpack --against theirs.msgpack    # exact head-to-head value
"""

from __future__ import annotations

import argparse
import sys

from distcfr.cli import OneLineParser
from distcfr.errors import DistcfrError
from distcfr.evaluate.class_strategy import KIND as CLASS_STRATEGY
from distcfr.evaluate.strategy import load_strategy
from distcfr.evaluate.tables import render_tables
from distcfr.io.schema import file_format


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m distcfr.show", description=__doc__.split("\n")[0].split(": ", 1)[1],
                     epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", help="a strategy file written by python -m distcfr.train")
    parser.add_argument("--against", metavar="PATH", help="another strategy of the same game: print "
                        "the exact value of each seat assignment")
    parser.add_argument("--hand", metavar="CARDS", help="sampled draw27 files: the full strategy of one hand, "
                        "e.g. 8s6h4d3c2c")
    try:
        args = parser.parse_args(argv)
        if file_format(args.path) == CLASS_STRATEGY:
            from distcfr.sampled_cli import show_class_strategy

            show_class_strategy(args.path, args.hand)
            return 0
        strategy = load_strategy(args.path)
        meta = strategy.meta
        print(f"{args.path}: {strategy.game.spec}, {meta.get('algorithm') or '?'} after "
              f"{meta.get('iterations', 0)} iterations")
        expl = strategy.exploitability_per_variant()
        for v, label in enumerate(strategy.game.variant_labels):
            br1, br2 = strategy.best_response_values(v)
            print(f"  {label + '  ' if label else ''}value {strategy.value(v):+.6f}  exploitability "
                  f"{expl[v]:.3e}  (best responses: player 1 {br1:+.6f}, player 2 {br2:+.6f})")
        tables = render_tables(strategy)
        if tables:
            print("\n" + tables)
        if args.against:
            other = load_strategy(args.against)
            for v, label in enumerate(strategy.game.variant_labels):
                print(f"  {label + '  ' if label else ''}{args.path} as player 1 vs {args.against}: "
                      f"{strategy.head_to_head(other, v):+.6f}; as player 2: {-other.head_to_head(strategy, v):+.6f}")
    except DistcfrError as err:
        print(f"distcfr.show: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

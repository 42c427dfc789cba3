"""python -m distcfr.show: read a saved strategy file and print its evaluation and tables, or
export it as JSON or as an OpenSpiel policy.

Examples:
  python -m distcfr.show strategy.msgpack
  python -m distcfr.show mine.msgpack --against theirs.msgpack    # exact head-to-head value
  python -m distcfr.show kuhn.msgpack --format json               # {infoset: {action: probability}}
  python -m distcfr.show leduc.msgpack --format openspiel --out leduc_policy.json
  python -m distcfr.show draw27_5card.msgpack --hand 8s6h4d3c2c    # sampled draw27: one hand's strategy
  python -m distcfr.show draw27_5card.msgpack --format json --out groups.json   # hand groups per stack
  python -m distcfr.show sweep.msgpack --stack 12 --hand 8s6h4d3c2c   # one stack of a sampled stack list
  python -m distcfr.show small.msgpack --exact     # a sampled file of a small deck: its exact exploitability
  python -m distcfr.show leduc.msgpack --html leduc.html        # one self-contained page (distcfr.present.html_report)
  python -m distcfr.show nl27.msgpack --html nl27.html          # nl27: bar charts per hand, before and after the draw
  python -m distcfr.show nl27.msgpack --hand 96                 # nl27: one hand's rows of every table
  python -m distcfr.show nl27_5card.msgpack --hand 8s6h4d3c2c   # sampled nl27: one hand's whole strategy
  python -m distcfr.show nl27_5card.msgpack --plot open.png     # sampled nl27: the button's opening per stack

nl27 files print per stack the button's opening per hand, the big blind's responses, the button
facing a raise, the draws on the main lines and, after the draw, bet / check / call / raise / fold
per final hand (distcfr.games.nl27_tables); a list of stacks prints the opening across the stacks.

Sampled nl27 files (5 cards from 52) print per stack the same per lowball hand group
(distcfr.present.nl27_sampled): the button's first action, the big blind's responses, the button
facing a raise, the draw counts on the main lines with the snows, and after the draw bet / check
and call / raise / fold per final hand; --format json gives the same tables as JSON, --plot the
button's opening per stack as a PNG.

Sampled draw27 files print their evaluation and a table per stack of lowball hand groups (pat
7-low .. J-low, one- and two-card draws, ...: distcfr.present.lowball_groups) with their share
of dealt hands, push and call frequency and draws; --format json gives the same as JSON with the
file's meta and evaluation.

--format openspiel (kuhn and leduc) writes {"game": "leduc_poker", "actions": [...], "policy":
{OpenSpiel information state string: [probability of each OpenSpiel action]}}; with open-spiel
installed, distcfr.evaluate.export.openspiel_policy(PATH) returns it as a TabularPolicy.
"""

from __future__ import annotations

import argparse
import json
import sys

from distcfr.cli import OneLineParser, check_distinct, printable
from distcfr.errors import BadParameter, DistcfrError
from distcfr.evaluate.class_strategy import KIND as CLASS_STRATEGY
from distcfr.evaluate.export import json_table, openspiel_table
from distcfr.evaluate.strategy import load_strategy
from distcfr.evaluate.tables import render_tables
from distcfr.evaluate.units import exploitability_text
from distcfr.games.table import fit_line
from distcfr.io.paths import check_writable, write_atomic
from distcfr.io.schema import file_format
from distcfr.present.sampled import PLOT_FILES

FORMATS = ("table", "json", "openspiel")
HAND_FILES = "--hand goes with a sampled file or an nl27 file, and --format table"


def table_text(strategy, path, against=None, hand: str | None = None) -> str:
    """Today's report: evaluation per variant, the game's tables (nl27 with ``hand``: that hand
    class's rows only), the head-to-head values."""
    meta = strategy.meta
    lines = [f"{path}: {strategy.game.spec}, {meta.get('algorithm') or '?'} after {meta.get('iterations', 0)} "
             "iterations"]
    expl, unit = strategy.exploitability_per_variant(), strategy.game.unit
    for v, label in enumerate(strategy.game.variant_labels):
        br1, br2 = strategy.best_response_values(v)
        lines.append(fit_line(f"  {label + '  ' if label else ''}value {strategy.value(v):+.6f} {unit}  exploitability "
                              f"{exploitability_text(expl[v], unit)}  (best responses: player 1 {br1:+.6f}, "
                              f"player 2 {br2:+.6f})"))
    if hand is None:
        tables = render_tables(strategy)
    else:
        from distcfr.games.nl27_tables import hand_text

        tables = hand_text(strategy, hand)
    if tables:
        lines.append("\n" + tables)
    if against is not None:
        other_path, other = against
        for v, label in enumerate(strategy.game.variant_labels):
            first, second = strategy.head_to_head(other, v), -other.head_to_head(strategy, v)
            lines.append(f"  {label + '  ' if label else ''}{path} as player 1 vs {other_path}: "
                         f"{first:+.6f}; as player 2: {second:+.6f}")
    return "\n".join(lines)


def exact_text(args):
    """(strategy, text) of a strategy file of an enumerated game, as ``args`` ask."""
    strategy = load_strategy(args.path)
    hand = None
    if args.hand:
        if strategy.game.name != "nl27":
            raise BadParameter(HAND_FILES)
        from distcfr.games.nl27_tables import hand_class

        hand = hand_class(strategy.game, args.hand)
    if args.format == "table":
        against = (args.against, load_strategy(args.against)) if args.against else None
        return strategy, table_text(strategy, args.path, against, hand)
    data = json_table(strategy) if args.format == "json" else openspiel_table(strategy)
    return strategy, json.dumps(data, indent=1)


def sampled_text(args):
    """(strategy, text) of a sampled file: its game's presentation (:mod:`distcfr.present.sampled`) as a
    table (with ``--hand``) or JSON, and its ``--plot``."""
    from distcfr.evaluate.class_strategy import load_class_strategy
    from distcfr.present.sampled import sampled_presentation, stack_indices

    strategy = load_class_strategy(args.path)
    if args.exact:
        rows = strategy.meta.get("evaluation") or [{"variant": label} for label in strategy.game.variant_labels]
        for row, x in zip(rows, strategy.exact_exploitability()):
            row["exploitability_exact"] = float(x)
        strategy.meta["evaluation"] = rows
    present, keep = sampled_presentation(strategy.game), stack_indices(strategy, args.stack)
    if args.plot:
        present.save_plot(args.plot, strategy, keep)
    if args.format == "table":
        return strategy, present.show_text(strategy, args.path, args.hand, keep)
    return strategy, json.dumps(present.show_json(strategy, keep), indent=1)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m distcfr.show``."""
    parser = OneLineParser(prog="python -m distcfr.show", description=__doc__.split("\n\n")[0].split(": ", 1)[1],
                           epilog=__doc__.split("\n", 3)[3], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", help="a strategy file written by python -m distcfr.train")
    parser.add_argument("--against", metavar="PATH", help="another strategy of the same game: print "
                        "the exact value of each seat assignment (with --format table)")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="table: evaluation and strategy tables (default); json: infoset label -> action -> "
                        "probability (sampled files: meta, evaluation and hand groups); openspiel: OpenSpiel "
                        "information state -> probabilities in OpenSpiel's action order (kuhn, leduc)")
    parser.add_argument("--out", metavar="PATH", help="write the output here instead of printing it")
    parser.add_argument("--hand", metavar="CARDS", help="sampled files (draw27, nl27): the full strategy of one "
                        "hand, e.g. 8s6h4d3c2c; exact nl27 files: that hand's rows of every table, e.g. 96")
    parser.add_argument("--stack", metavar="BB", type=float, help="sampled files: that stack only, e.g. 12")
    parser.add_argument("--exact", action="store_true", help="sampled files of decks the exact solver "
                        "reaches: the exact exploitability per stack, every deal enumerated (it says how long it "
                        "may take before it starts)")
    parser.add_argument("--html", metavar="PATH", help="write the whole report as one self-contained HTML page")
    parser.add_argument("--plot", metavar="PATH", help="sampled nl27 files: write the button's opening per hand "
                        "group and stack as a PNG (needs matplotlib)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.against and args.format != "table":
            raise BadParameter("--against goes with --format table")
        check_distinct({"FILE": args.path, "--against": args.against}, {"--out": args.out, "--html": args.html,
                                                                             "--plot": args.plot})
        if args.out:
            check_writable(args.out)
        if args.html:
            if (args.against or args.out or args.hand or args.stack is not None or args.format != "table" or args.exact
                    or args.plot):
                raise BadParameter("--html writes the whole report: no --against, --out, --hand, --stack, --format, "
                                   "--exact or --plot")
            from distcfr.present.html_report import html_report

            check_writable(args.html)
            write_atomic(args.html, html_report(args.path).encode())
            print(f"html report of {args.path} written to {args.html}")
            return 0
        sampled = file_format(args.path) == CLASS_STRATEGY
        if sampled and (args.format == "openspiel" or args.against):
            raise BadParameter("a sampled file is shown as a table or JSON only (no openspiel, --against)")
        if args.hand and args.format != "table":
            raise BadParameter(HAND_FILES)
        if args.exact and not sampled:
            raise BadParameter("--exact goes with a sampled file (an exact file's exploitability is exact)")
        if args.plot and not sampled:
            raise BadParameter(PLOT_FILES)
        if args.plot:
            from distcfr.present.plots import require_matplotlib

            require_matplotlib()
            check_writable(args.plot)
        if args.stack is not None and not sampled:
            raise BadParameter("--stack goes with a sampled file (an exact file's table lists every stack)")
        strategy, text = (sampled_text if sampled else exact_text)(args)
        if strategy.meta.get("unchecked"):
            print(f"distcfr.show: note: {printable(str(args.path))} is a version {strategy.meta['unchecked']} file, "
                  f"written before files carried checksums: read unchecked", file=sys.stderr)
        if args.out:
            write_atomic(args.out, (text + "\n").encode())
            print(f"{args.format} of {args.path} ({strategy.game.spec}) written to {args.out}")
        else:
            print(printable(text))
    except DistcfrError as err:
        print(f"distcfr.show: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a run prints at its end: speed, value and exploitability per stack, break-even stacks, and
where its files went (from the summary of distcfr.evaluate.summary)."""

from __future__ import annotations

import math

from distcfr.engine.sampled_bracket import BRACKET_CHUNK as MAX_BRACKET_SAMPLES
from distcfr.evaluate.reach import FIT_POINTS, MIN_POINTS
from distcfr.evaluate.summary import inside_interval
from distcfr.evaluate.units import amount, duration, exploitability_text, figure, per  # noqa: F401 (duration: for the CLI)
from distcfr.games.table import fit_line
from distcfr.io.schema import MAX_ITERATION
from distcfr.present.lowball_groups import render_compact, render_groups


def _since_resume(summary: dict) -> str:
    """How much of the totals this run did, when it continued an earlier one."""
    run = summary.get("this_run") or {}
    if not run.get("resumed_from"):
        return ""
    deals = f", {run['deals']:,} deals" if "deals" in run else ""
    return f" (this run: {run['iterations']} iterations{deals} in {run['wall_seconds']:.1f} s)"


def print_result(summary: dict, out_path, interrupted: bool, checkpoint) -> None:
    """The end of an exact run: value and exploitability (in the game's unit) per stack, break-even
    stacks, the files."""
    head = "interrupted" if interrupted else "solved"
    unit, seat = summary.get("unit", ""), summary.get("value_of", "player 1")
    where = f" on {summary['workers']} workers" if summary.get("workers") else ""
    resumed = _since_resume(summary)
    took = "" if resumed else f" in {summary['wall_seconds']:.2f} s"
    print(f"{head} {summary['game']} with {summary['algorithm']}{where}: {summary['iterations']} iterations"
          f"{took}{resumed}")
    if len(summary["per_variant"]) == 1:
        print(fit_line(f"  exploitability {exploitability_text(summary['exploitability'], unit)}  "
                       f"value ({seat}) {summary['value']:+.6f} {unit}"))
    else:
        head = f"value ({seat}, {unit})"
        print(f"  {'stack':>8}  {head}  exploitability {per(unit)}")
        for row in summary["per_variant"]:
            print(f"  {row['variant']:>8}  {row['value']:+{len(head)}.6f}  {amount(row['exploitability'], unit)}")
    if "break_even" in summary:
        points = ", ".join(f"{x:.4g}" for x in summary["break_even"])
        print(f"  break-even stack (the {seat}'s value crosses 0): " + (f"{points} BB" if points else
                                                                      "none in this range of stacks"))
    print(f"  average strategy written to {out_path}" + (f"; checkpoint {checkpoint}" if checkpoint else ""))


def print_sampled(summary: dict, out_path, groups: dict | None = None) -> None:
    """The end of a sampled run: speed, value and bracket per stack, and with ``groups`` (a
    :func:`~distcfr.present.lowball_groups.group_report` of the strategy as its file stores it)
    the hand-group table: in full for one stack, push / call only for several."""
    resumed = _since_resume(summary)
    took = "" if resumed else f" in {summary['wall_seconds']:.1f} s"
    print(f"sampled {summary['game']} with {summary['algorithm']}: {summary['iterations']} iterations, "
          f"{summary['deals']:,} deals{took}{resumed} ({summary['deals_per_second']:,.0f} deals/s)")
    unit = summary["unit"]
    for row in summary["per_variant"]:
        expl = exploitability_text(row["exploitability"], unit, row["exploitability_ci"])
        print(fit_line(f"  {row['variant']:>8}  value {row['value']:+.4f} +- {row['value_se']:.4f} {unit}  "
                       f"exploitability {expl}"))
    cost = summary.get("bracket")
    if cost:
        where = f" on {cost['workers']} workers" if cost["workers"] else ""
        rounds = cost["refine_rounds"]
        refined = (f"{cost['refine_deals']:,} refining close classes in {rounds} round{'s' * (rounds != 1)}"
                   if rounds else "no refinement")
        focus = cost.get("focus_deals")  # absent from summaries written before the focus round
        focused = f", {focus:,} choosing again the least certain classes" if focus else ""
        print(fit_line(f"  the bracket: {cost['deals']:,} deals ({cost['per_class']:,} per hand class in each "
                       f"player's two sets, {refined}{focused}) in {cost['seconds']:.1f} s{where}"))
    exact = summary.get("exploitability_exact")
    if exact:
        for row in summary["per_variant"]:
            where = "" if row["exploitability"] is None else \
                f", {'inside' if inside_interval(row) else 'outside'} the interval"
            print(fit_line(f"  {row['variant']:>8}  exact {exploitability_text(row['exploitability_exact'], unit)}"
                           + where))
        print(fit_line(f"  the exact figure: every deal enumerated, the strategy as saved, {exact['seconds']:.1f} s"))
    elif "exact_hint" in summary:
        about = "under a second" if summary["exact_hint"] < 1 else f"about {duration(summary['exact_hint'])}"
        print(fit_line(f"  the exact exploitability is in reach on this deck ({about}): --exact-exploitability, "
                       "or python -m distcfr.show FILE --exact"))
    if "target" in summary:
        print(fit_line(target_line(summary["target"], unit)))
    if "break_even" in summary:
        points = ", ".join(f"{x:.3f}" for x in summary["break_even"])
        span = summary["break_even_interval"]
        print("  break-even stack (the button's value crosses 0): " + (f"{points} BB" if points else
                                                                      "none in this range of stacks")
              + (f" (95% band crosses zero in [{span[0]:.3f}, {span[1]:.3f}] BB)" if span else ""))
    if summary.get("settling"):
        print(fit_line(settling_line(summary["settling"], unit)))
    lost = summary.get("recoveries") or []
    if lost:
        print(f"  recovered from lost workers {len(lost)} time(s), {sum(r['seconds'] for r in lost):.1f} s in all: "
              + ", ".join(f"lost at iteration {r['lost_at']} (noticed after {r['waited']:.0f} s), went on from "
                          f"{r['resumed_at']}" + _on_workers(r.get("workers")) for r in lost))
    print(f"  average strategy written to {out_path} (float16 per hand class)")
    saved = summary.get("checkpoint")
    if saved:
        parts = [f"{saved['bytes'] / 1e9:.2f} GB" if saved["bytes"] else None,
                 f"last written in {saved['write_seconds']:.1f} s" if saved["write_seconds"] else None,
                 f"read back in {saved['resume_seconds']:.1f} s" if saved["resume_seconds"] else None]
        print(f"  checkpoint {saved['path']}: " + ", ".join(p for p in parts if p))
    if groups is not None:
        print(render_groups(groups) if len(groups["stacks"]) == 1 else render_compact(groups))


def settling_line(s: dict, unit: str) -> str:
    """How far the values moved over the run's second half (a summary's ``settling``), in one line."""
    moves = s["value_moves"]
    moved = (f"the value moved by {'+' * (moves[0] >= 0)}{figure(moves[0])} {unit}" if len(moves) == 1 else
             f"the values moved by at most {figure(s['largest_value_move'])} {unit} per stack")
    if "break_even_from" in s:
        before, after = s["break_even_from"], s["break_even_to"]
        if s["largest_break_even_move"] is not None and before:
            moved += f", the break-even stacks by at most {figure(s['largest_break_even_move'])} {unit}"
        elif s["largest_break_even_move"] is None:
            moved += (f", the break-even stacks from {', '.join(f'{x:.3f}' for x in before) or 'none'} to "
                      f"{', '.join(f'{x:.3f}' for x in after) or 'none'} {unit}")
    return (f"  settling: between {duration(s['from']['seconds'])} and {duration(s['to']['seconds'])} into the run "
            f"(iterations {s['from']['iteration']:,} -> {s['to']['iteration']:,}) {moved} (on the same "
            f"{s['deals']:,} deals each time, {s['per_class']:,} per hand class)")


def target_head(target: float, unit: str) -> str:
    """``0.01 BB per hand``: a target as the command line gave it."""
    return f"{target:g} {unit} {per(unit)}"


def target_line(t: dict, unit: str) -> str:
    """A sampled run against its target (a summary's ``target``) in one line: reached, out of the
    bracket's reach, or not reached in the run's budget and what the rate says it would need."""
    share = t["eval_seconds"] / t["wall_seconds"] if t["wall_seconds"] else 0.0
    upper = f"the bracket's upper end is {amount(t['upper_end'], unit)} at {t['worst_stack']}"
    cost = f"its {t['evaluations']} evaluation(s) took {t['eval_seconds']:.1f} s ({share:.0%} of the run)"
    head = f"  target {target_head(t['target'], unit)}"
    if t["reached"]:
        return f"{head} reached: {upper}; {cost}"
    if t["out_of_reach"]:
        stopped = "; the run stopped there (no --iterations or --minutes)" if t["gave_up"] else ""
        return f"{head} not reached: {upper}; {out_of_reach_text(t, unit)}{stopped}"
    return f"{head} not reached in the run's budget: {upper}; {_estimate_text(t, unit)}; {cost}"


def out_of_reach_text(t: dict, unit: str) -> str:
    """Why a target is out of the bracket's reach at its samples, and the samples that would reach it."""
    return (f"out of reach of the bracket at --bracket-samples {t['bracket_per_class']:,}, which resolves "
            f"{figure(t['resolution'])} {unit} (its estimates' gap plus 1.96 standard errors, both ~1/sqrt(samples)); "
            f"{_samples_text(t, unit)}")


def _samples_text(t: dict, unit: str) -> str:
    """The deals per hand class that would resolve the target, or that they are more than allowed."""
    needed = t["samples_to_resolve"]
    if needed <= MAX_BRACKET_SAMPLES:
        return f"--bracket-samples {needed:,} would resolve it"
    best = t["resolution"] * math.sqrt(t["bracket_per_class"] / MAX_BRACKET_SAMPLES)
    return (f"it needs about {needed:,} deals per hand class, beyond the most allowed ({MAX_BRACKET_SAMPLES:,}, "
            f"which resolves about {figure(best)} {unit})")


def _estimate_text(t: dict, unit: str) -> str:
    """What the rate the upper end fell at says about the target."""
    fitted = min(t["evaluations"], FIT_POINTS)
    if t["samples_to_resolve"] is not None:  # in reach as far as the bracket can tell yet, but not at its samples
        return (f"the time it needs cannot be estimated yet: the strategy is still clearly exploitable and the "
                f"bracket resolves only {figure(t['resolution'])} {unit} at --bracket-samples "
                f"{t['bracket_per_class']:,} ({_samples_text(t, unit)})")
    if t["rate"] is None:
        return (f"the time it needs cannot be estimated yet ({t['evaluations']} evaluation(s); a rate needs "
                f"{MIN_POINTS} whose upper end falls)")
    rate = (f"at the rate it fell over the last {fitted} evaluations (less the bracket's resolution, as "
            f"iterations^{t['rate']:.2f})")
    if t["iterations_needed"] is None:
        return f"{rate} it needs more than {MAX_ITERATION:,} iterations"
    return (f"{rate} it needs about {t['iterations_needed']:,} iterations in all, "
            f"~{duration(t['seconds_needed'])} more")


def _on_workers(workers: int | None) -> str:
    """Where a run went on after lost workers, in words ("" where not known)."""
    if workers is None:
        return ""
    return " in this process" if workers == 0 else f" on {workers} worker{'s' if workers > 1 else ''}"

"""What a run prints at its end: speed, value and exploitability per stack, break-even stacks, and
where its files went (from the summary of distcfr.evaluate.summary)."""

from __future__ import annotations

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
        print(f"  exploitability {summary['exploitability']:.3e} {unit}  value ({seat}) {summary['value']:+.6f} {unit}")
    else:
        print(f"  {'stack':>8}  value ({seat}, {unit})  exploitability ({unit})")
        for row in summary["per_variant"]:
            print(f"  {row['variant']:>8}  {row['value']:+18.6f}  {row['exploitability']:.3e}")
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
    for row in summary["per_variant"]:
        lo, hi = row["exploitability_ci"]
        print(f"  {row['variant']:>8}  value {row['value']:+.4f} +- {row['value_se']:.4f} BB  "
              f"exploitability in [{lo:.4f}, {hi:.4f}] BB ({1000 * lo:.1f} to {1000 * hi:.1f} mBB per hand)")
    if "break_even" in summary:
        points = ", ".join(f"{x:.3f}" for x in summary["break_even"])
        span = summary["break_even_interval"]
        print("  break-even stack (the button's value crosses 0): " + (f"{points} BB" if points else
                                                                      "none in this range of stacks")
              + (f" (95% band crosses zero in [{span[0]:.3f}, {span[1]:.3f}] BB)" if span else ""))
    lost = summary.get("recoveries") or []
    if lost:
        print(f"  recovered from lost workers {len(lost)} time(s), {sum(r['seconds'] for r in lost):.1f} s in all: "
              + ", ".join(f"lost at iteration {r['lost_at']} (noticed after {r['waited']:.0f} s), went on from "
                          f"{r['resumed_at']}" for r in lost))
    print(f"  average strategy written to {out_path} (float16 per hand class)")
    saved = summary.get("checkpoint")
    if saved:
        parts = [f"{saved['bytes'] / 1e9:.2f} GB" if saved["bytes"] else None,
                 f"last written in {saved['write_seconds']:.1f} s" if saved["write_seconds"] else None,
                 f"read back in {saved['resume_seconds']:.1f} s" if saved["resume_seconds"] else None]
        print(f"  checkpoint {saved['path']}: " + ", ".join(p for p in parts if p))
    if groups is not None:
        print(render_groups(groups) if len(groups["stacks"]) == 1 else render_compact(groups))



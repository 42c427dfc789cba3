"""What a run prints at its end: speed, value and exploitability per stack, break-even stacks, and
where its files went (from the summary of distcfr.evaluate.summary)."""

from __future__ import annotations

from distcfr.present.lowball_groups import render_compact, render_groups


def print_result(summary: dict, out_path, interrupted: bool, checkpoint) -> None:
    head = "interrupted" if interrupted else "solved"
    where = f" on {summary['workers']} workers" if summary.get("workers") else ""
    print(f"{head} {summary['game']} with {summary['algorithm']}{where}: {summary['iterations']} iterations "
          f"in {summary['wall_seconds']:.2f} s")
    if len(summary["per_variant"]) == 1:
        print(f"  exploitability {summary['exploitability']:.3e}  value (player 1) {summary['value']:+.6f}")
    else:
        for row in summary["per_variant"]:
            print(f"  {row['variant']:>8}  value {row['value']:+.6f}  exploitability {row['exploitability']:.3e}")
    if "break_even" in summary:
        points = ", ".join(f"{x:.4g}" for x in summary["break_even"]) or "none in this range"
        print(f"  break-even stack (value crosses 0): {points}")
    print(f"  average strategy written to {out_path}" + (f"; checkpoint {checkpoint}" if checkpoint else ""))


def print_sampled(summary: dict, out_path, groups: dict | None = None) -> None:
    """The end of a sampled run: speed, value and bracket per stack, and with ``groups`` (a
    :func:`~distcfr.present.lowball_groups.group_report` of the strategy as its file stores it)
    the hand-group table: in full for one stack, push / call only for several."""
    print(f"sampled {summary['game']} with {summary['algorithm']}: {summary['iterations']} iterations, "
          f"{summary['deals']:,} deals in {summary['wall_seconds']:.1f} s ({summary['deals_per_second']:,.0f} deals/s)")
    for row in summary["per_variant"]:
        lo, hi = row["exploitability_ci"]
        print(f"  {row['variant']:>8}  value {row['value']:+.4f} +- {row['value_se']:.4f}  "
              f"exploitability in [{lo:.4f}, {hi:.4f}] BB (estimates {row['exploitability_estimates'][0]:.4f} "
              f"to {row['exploitability_estimates'][1]:.4f})")
    if "break_even" in summary:
        points = ", ".join(f"{x:.3f}" for x in summary["break_even"]) or "none in this range"
        span = summary["break_even_interval"]
        print(f"  break-even stack: {points} BB" + (f" (95% band crosses zero in [{span[0]:.3f}, {span[1]:.3f}])"
                                                   if span else ""))
    print(f"  average strategy written to {out_path} (float16 per hand class)")
    saved = summary.get("checkpoint")
    if saved:
        parts = [f"{saved['bytes'] / 1e9:.2f} GB" if saved["bytes"] else None,
                 f"last written in {saved['write_seconds']:.1f} s" if saved["write_seconds"] else None,
                 f"read back in {saved['resume_seconds']:.1f} s" if saved["resume_seconds"] else None]
        print(f"  checkpoint {saved['path']}: " + ", ".join(p for p in parts if p))
    if groups is not None:
        print(render_groups(groups) if len(groups["stacks"]) == 1 else render_compact(groups))



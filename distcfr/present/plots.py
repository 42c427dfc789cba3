"""Pictures of a run: exploitability against iterations, and for a list of stacks the value
per stack with its break-even points. Needs matplotlib (``pip install "distcfr[plot]"``)."""

from __future__ import annotations

import io

import numpy as np

from distcfr.errors import BadParameter


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise BadParameter('--plot needs matplotlib: pip install "distcfr[plot]"') from None


def save_run_plot(path, history: list[tuple[int, float]], summary: dict) -> None:
    """Write a PNG: convergence (and value per stack when the game has several)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt


    stacks = summary.get("per_stack")
    fig, axes = plt.subplots(1, 2 if stacks else 1, figsize=(11 if stacks else 5.5, 4), squeeze=False)
    ax = axes[0, 0]
    if history:
        iterations, exploitability = zip(*history)
        ax.loglog(iterations, exploitability, marker=".", lw=1)
    ax.set_xlabel("iteration")
    ax.set_ylabel("exploitability (average strategy)")
    ax.set_title(f"{summary['game']}, {summary['algorithm']}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    if stacks:
        ax = axes[0, 1]
        ax.plot([r["stack"] for r in stacks], [r["value"] for r in stacks], marker="o")
        ax.axhline(0, color="grey", lw=0.8)
        for point in summary.get("break_even", []):
            ax.axvline(point, color="tab:red", ls="--", lw=0.8)
            ax.annotate(f"{point:.3g} BB", (point, 0), textcoords="offset points", xytext=(4, 6), color="tab:red")
        ax.set_xlabel("stack (BB)")
        ax.set_ylabel("button's value (BB per hand)")
        ax.set_title(f"largest exploitability {summary['exploitability']:.1e} BB", fontsize=9)
        ax.grid(True, alpha=0.3)
    write_png(path, fig)


def group_panels(groups: dict, top: int = 6) -> list[tuple[str, dict[str, list[float]], bool]]:
    """draw27's action panels of :func:`save_sweep_plot` from its hand groups' report: the button's
    push and the big blind's call frequency per stack, overall and for the ``top`` most common groups."""
    common = sorted(range(len(groups["groups"])), key=lambda i: -groups["groups"][i]["hands"])[:top]
    per_stack = groups["stacks"]
    return [(f"{who} (share of hands)", {"all hands": [s[key] for s in per_stack]}
             | {groups["groups"][i]["group"]: [s["groups"][i][key] for s in per_stack] for i in common}, True)
            for key, who in (("push", "button pushes"), ("call", "big blind calls"))]


def save_sweep_plot(path, summary: dict, panels: list[tuple[str, dict[str, list[float]], bool]]) -> None:
    """Write a PNG of a sampled run: the value per stack with its 95% band and the break-even
    interval; two panels of action frequencies per stack, the game's own (``panels``: (y label,
    {line: a share per stack}, whether the first line is the total, drawn bold); draw27's from
    :func:`group_panels`); the bracket against minutes (progress brackets); and how the values
    settled: each stack's value reading less its last, against minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt


    rows = summary["per_variant"]
    stacks = [float(r["variant"].rstrip("B")) for r in rows]
    fig = plt.figure(figsize=(11, 11.5))
    grid = fig.add_gridspec(3, 2)
    axes = np.array([[fig.add_subplot(grid[r, c]) for c in range(2)] for r in range(2)])
    _settling_panel(fig.add_subplot(grid[2, :]), summary.get("settling"), stacks)
    ax = axes[0, 0]
    value, se = [r["value"] for r in rows], [1.96 * r["value_se"] for r in rows]
    ax.errorbar(stacks, value, yerr=se, marker="o", ms=3, capsize=2)
    ax.axhline(0, color="grey", lw=0.8)
    interval = summary.get("break_even_interval")
    if interval:
        ax.axvspan(*interval, color="tab:red", alpha=0.15)
    for point in summary.get("break_even", []):
        ax.axvline(point, color="tab:red", ls="--", lw=0.8)
        ax.annotate(f"{point:.3g} BB", (point, 0), textcoords="offset points", xytext=(4, 6), color="tab:red")
    ax.set(xlabel="stack (BB)", ylabel="button's value (BB per hand), 95% band", title=summary["game"])
    for ax, (label, lines, total_first) in zip((axes[0, 1], axes[1, 0]), panels):
        for i, (name, shares) in enumerate(lines.items()):
            total = total_first and i == 0
            ax.plot(stacks, shares, marker="o" if len(stacks) == 1 else None, ms=3, lw=2 if total else 1,
                    label=name, **({"color": "black"} if total else {}))
        ax.set(xlabel="stack (BB)", ylabel=label, ylim=(-0.02, 1.02))
        ax.legend(fontsize=7)
    _brackets_panel(axes[1, 1], summary, stacks)
    for ax in fig.axes:
        ax.grid(True, alpha=0.3)
    write_png(path, fig)


def _brackets_panel(ax, summary: dict, stacks: list[float]) -> None:
    """The progress brackets' estimates (largest stack) against minutes; a run that made none (too
    few deals per class to tell anything, or none fitted its share of the time) shows its final
    bracket stack by stack instead."""
    history = summary.get("bracket_history") or []
    if history:
        minutes = [h["seconds"] / 60 for h in history]
        ax.plot(minutes, [h["high"] for h in history], marker=".", label="upper estimate (in-sample)")
        ax.plot(minutes, [h["low"] for h in history], marker=".", label="lower estimate (held out)")
        per_class = history[-1].get("per_class")
        ax.set(xlabel="minutes", ylabel="exploitability estimates, largest stack (BB)",
               title="brackets during the run" + (f" ({per_class:,} deals per hand class)" if per_class else ""))
    else:
        rows = summary["per_variant"]
        low, high = zip(*(r["exploitability_ci"] for r in rows))
        ax.vlines(stacks, low, high, lw=4, alpha=0.4, label="95% interval")
        ax.plot(stacks, [r["exploitability"] for r in rows], "o", ms=3, label="upper estimate (in-sample)")
        per_class = (summary.get("bracket") or {}).get("per_class")
        ax.set(xlabel="stack (BB)", ylabel="exploitability (BB per hand)", ylim=(0, None),
               title="the final bracket, no progress brackets in this run"
               + (f"\n({per_class:,} deals per hand class)" if per_class else ""))
    ax.legend(fontsize=8)


def _settling_panel(ax, settling: dict | None, stacks: list[float], labelled: int = 6) -> None:
    """Each stack's value reading less its last against minutes (a line per stack, ``labelled`` of
    them named): how far the values still moved, on the same deals every reading."""
    if settling is None:  # a summary keeps none with fewer than three readings (evaluate.summary.settling)
        ax.text(0.5, 0.5, "fewer than three value readings in this run", ha="center", va="center",
                transform=ax.transAxes)
    else:
        readings = settling["readings"]
        minutes = [r["seconds"] / 60 for r in readings]
        moves = np.array([r["value"] for r in readings]) - np.array(readings[-1]["value"])  # (readings, stacks)
        every = max(1, len(stacks) // labelled)
        for i, stack in enumerate(stacks):
            ax.plot(minutes, moves[:, i], lw=1, marker=".", ms=3, label=f"{stack:g} BB" if i % every == 0 else None)
        ax.axvline(settling["from"]["seconds"] / 60, color="grey", ls="--", lw=0.8)
        ax.legend(fontsize=7, ncol=2)
    per_class = (settling or {}).get("per_class")
    ax.set(xlabel="minutes", ylabel="value less its last reading (BB per hand)",
           title="how the button's values settled" + (f" (the same {settling['deals']:,} deals each reading, "
                                                      f"{per_class:,} per hand class; dashed: the middle one)"
                                                      if per_class else ""))


def save_compare_plot(path, data: dict) -> None:
    """Write a PNG of ``python -m distcfr.compare``'s curves: exploitability against solving
    time (left) and against iterations (right), one line per rule."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt


    fig, (by_time, by_iteration) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, curve in data["curves"].items():
        style = {"ls": "--", "color": "black"} if "OpenSpiel" in name else {}
        by_time.loglog(curve["seconds"], curve["exploitability"], lw=1.2, label=name, **style)
        by_iteration.loglog(curve["iterations"], curve["exploitability"], lw=1.2, label=name, **style)
    unit = " (BB)" if data["unit"] == "BB" else " (chips)"
    by_time.set_xlabel("solving time (s), evaluation excluded")
    by_iteration.set_xlabel("iterations")
    for ax in (by_time, by_iteration):
        ax.set_ylabel("exploitability" + unit)
        ax.grid(True, which="both", alpha=0.3)
    by_iteration.legend(fontsize=8)
    fig.suptitle(f"{data['game']}: exploitability of the average strategy, {data['seconds_per_rule']:g} s per rule",
                 fontsize=10)
    write_png(path, fig)


def save_betting_plot(path, data: dict) -> None:
    """Write a PNG of the button's value per stack, push/fold beside betting (``seeds``' pushfold_2to7)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = data["curve"]
    stacks = [p["stack"] for p in curve]
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(stacks, [p["push_fold"] for p in curve], "o-", ms=3, label="push/fold (draw27)")
    ax.plot(stacks, [p["betting"] for p in curve], "s-", ms=3, label="with betting (nl27)")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("stack (BB)")
    ax.set_ylabel("button's value (BB per hand)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    worst = max(p["exploitability_betting"] for p in curve)
    ax.set_title(f"{data['game']}: exact values (exploitability at most {worst:.1e} BB)", fontsize=9)
    write_png(path, fig)


def write_png(path, fig) -> None:
    """Lay ``fig`` out, write it to ``path`` as a PNG atomically and let it go."""
    import matplotlib.pyplot as plt

    from distcfr.io.paths import write_atomic

    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_atomic(path, buffer.getvalue())

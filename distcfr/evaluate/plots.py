"""Pictures of a run: exploitability against iterations, and for a list of stacks the value
per stack with its break-even points. Needs matplotlib (``pip install "distcfr[plot]"``)."""

from __future__ import annotations

import io

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

    from distcfr.io.paths import write_atomic

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
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_atomic(path, buffer.getvalue())


def save_compare_plot(path, data: dict) -> None:
    """Write a PNG of ``python -m distcfr.compare``'s curves: exploitability against solving
    time (left) and against iterations (right), one line per rule."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from distcfr.io.paths import write_atomic

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
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_atomic(path, buffer.getvalue())

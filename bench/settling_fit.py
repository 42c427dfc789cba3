"""How many iterations a sampled run needs to settle, from its own value readings.

    python bench/settling_fit.py SUMMARY.json [--from-iteration 40] [--target 0.002]

Reads the value readings of a run's ``--summary-json`` (``settling.readings``: the button's value per
stack on the same fixed deals at several iterations) and fits v(T) = v* - c / T per stack by least
squares over the readings from ``--from-iteration`` on (the first few iterations are a faster
transient). Where the fit holds, a stack's value moves by c / T between iterations T / 2 and T, so
it settles to ``--target`` BB in that window once T >= c / target: the figure printed per stack, with
the fit's largest residual to say whether it holds.
"""

from __future__ import annotations

import argparse
import json

import numpy as np


def fit(readings: list[dict], first: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(v* (B,), c (B,), largest residual) of v(T) = v* - c / T over readings from iteration ``first``."""
    used = [r for r in readings if r["iteration"] >= first]
    if len(used) < 3:
        raise SystemExit(f"settling_fit: need 3 readings from iteration {first} on, the run has {len(used)}")
    t = np.array([r["iteration"] for r in used], dtype=np.float64)
    values = np.array([r["value"] for r in used], dtype=np.float64)  # (readings, B)
    design = np.stack([np.ones_like(t), -1.0 / t], axis=1)
    (limit, c), *_ = np.linalg.lstsq(design, values, rcond=None)
    return limit, c, float(np.abs(design @ np.stack([limit, c]) - values).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("summary", help="a run's --summary-json")
    parser.add_argument("--from-iteration", type=int, default=40, help="fit the readings from this iteration on")
    parser.add_argument("--target", type=float, default=0.002, help="BB a stack may move between T/2 and T")
    args = parser.parse_args()
    summary = json.load(open(args.summary))
    readings = (summary.get("settling") or {}).get("readings") or []
    limit, c, residual = fit(readings, args.from_iteration)
    names = [v["variant"] for v in summary.get("per_variant", [])] or [str(i) for i in range(len(c))]
    print(f"{summary['game']}: {summary['iterations']} iterations; v(T) = v* - c / T fitted to the readings at "
          f"iterations {', '.join(str(r['iteration']) for r in readings if r['iteration'] >= args.from_iteration)} "
          f"(largest residual {1000 * residual:.2f} mBB)")
    print("stack | c (mBB x iterations) | move T/2 -> T at the run's end (mBB) | iterations to settle to "
          f"{1000 * args.target:g} mBB")
    for name, ci in zip(names, c):
        print(f"{name} | {1000 * ci:.0f} | {1000 * ci / summary['iterations']:.2f} | {max(ci, 0) / args.target:.0f}")
    print(f"every stack: {max(c.max(), 0) / args.target:.0f} iterations")


if __name__ == "__main__":
    main()

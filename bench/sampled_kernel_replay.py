"""Time two versions of the sampled draw27 class-sums kernels on the same real inputs.

On a shared machine a whole iteration's time moves by 10-20% between runs, more than most kernel
changes gain. So this captures the compiled class-sums calls of one training iteration from a
checkpoint (the real current strategies and deals), then replays them through two versions of
``distcfr/engine/draw27_compiled.py`` interleaved in one process, and prints the least and median
time per deal of each and whether their outputs are bitwise the same:

    python bench/sampled_kernel_replay.py capture RUN.ckpt calls.npz [--calls 40]
    cp distcfr/engine/draw27_compiled.py /tmp/variant.py   # edit the copy
    OPENBLAS_NUM_THREADS=1 python bench/sampled_kernel_replay.py replay calls.npz \\
        distcfr/engine/draw27_compiled.py /tmp/variant.py [--reps 11]

A checkpoint comes from any sampled run with ``--checkpoint`` (5 cards from 52 at 20 stacks: about
5 GB, and the capture holds one process's tables: about 10 GB of memory).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import threading
import time
from pathlib import Path

import numpy as np

KERNELS = ("button_sums", "big_blind_sums")
SHARED = 7  # arguments from this one on (stacks, rank tables, mask sizes) are the same in every call


def capture(checkpoint: str, out: str, keep: int) -> None:
    """Run one iteration from ``checkpoint`` in this process and save the arguments of the first
    ``keep`` calls of each class-sums kernel to ``out`` (.npz)."""
    from distcfr.engine import draw27_compiled as compiled
    from distcfr.solve.checkpoint import load_checkpoint
    from distcfr.solve.sampled_solver import SampledSolver

    solver = SampledSolver.from_checkpoint(load_checkpoint(checkpoint))
    calls: dict[str, list] = {name: [] for name in KERNELS}
    lock = threading.Lock()
    for name in KERNELS:
        real = getattr(compiled, name)

        def spy(*args, real=real, kept=calls[name]):
            with lock:
                if len(kept) < keep:
                    kept.append([np.array(a) for a in args])
            return real(*args)

        setattr(compiled, name, spy)
    try:
        solver.step()
    finally:
        solver.close()
    arrays = {f"{name}/{i}/{j}": a for name, kept in calls.items() for i, args in enumerate(kept)
              for j, a in enumerate(args) if i == 0 or j < SHARED}  # the shared ones saved once
    np.savez(out, **arrays)
    for name, kept in calls.items():
        print(f"{name}: {len(kept)} calls, {sum(len(args[4]) for args in kept):,} deals")


def load_calls(path: str) -> dict[str, list[list[np.ndarray]]]:
    """{kernel: [args of each call]} as :func:`capture` saved them."""
    data = np.load(path)
    calls: dict[str, dict[int, dict[int, np.ndarray]]] = {name: {} for name in KERNELS}
    for key in data.files:
        name, i, j = key.split("/")
        calls[name].setdefault(int(i), {})[int(j)] = data[key]
    out = {}
    for name, by_call in calls.items():
        shared = [by_call[0][j] for j in sorted(by_call[0]) if j >= SHARED]
        out[name] = [[args[j] for j in sorted(args) if j < SHARED] + shared for _, args in sorted(by_call.items())]
    return out


def load_module(path: str, label: str):
    """The kernels module at ``path``, compiled afresh (numba's cache off: a copy has no cache)."""
    source = Path(path).read_text().replace('"cache": True', '"cache": False')
    spec = importlib.util.spec_from_loader(label, loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[label] = module
    exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 (the user's own kernel file)
    return module


def replay(path: str, files: list[str], reps: int) -> None:
    calls = load_calls(path)
    modules = [load_module(f, f"kernel_{i}") for i, f in enumerate(files)]
    for name in KERNELS:
        args = calls[name]
        deals = sum(len(a[4]) for a in args)
        kernels = [getattr(m, name) for m in modules]
        outs = [[k(*a) for a in args] for k in kernels]  # compiles, and the outputs to compare
        times: list[list[float]] = [[] for _ in kernels]
        for _ in range(reps):
            for i, kernel in enumerate(kernels):
                start = time.process_time()
                for a in args:
                    kernel(*a)
                times[i].append(time.process_time() - start)
        same = all(all(np.array_equal(x, y) for x, y in zip(o[0], o[1])) for o in zip(*outs))
        cells = [f"{Path(f).name}: least {min(t) / deals * 1e6:.2f} us a deal, median {np.median(t) / deals * 1e6:.2f}"
                 for f, t in zip(files, times)]
        print(f"{name} ({len(args)} calls, {deals:,} deals): " + " | ".join(cells) + f"; bitwise the same: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture", help="save one iteration's class-sums calls from a checkpoint")
    cap.add_argument("checkpoint")
    cap.add_argument("out")
    cap.add_argument("--calls", type=int, default=40, help="calls kept per kernel (default 40)")
    rep = sub.add_parser("replay", help="time two kernel files on saved calls, interleaved")
    rep.add_argument("calls")
    rep.add_argument("files", nargs=2, help="two copies of distcfr/engine/draw27_compiled.py")
    rep.add_argument("--reps", type=int, default=11, help="timed passes of each (default 11)")
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.checkpoint, args.out, args.calls)
    else:
        replay(args.calls, args.files, args.reps)


if __name__ == "__main__":
    main()

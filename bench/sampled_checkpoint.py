"""Streamed sampled checkpoints: write and resume times, size, and the coordinator's memory.

    python bench/sampled_checkpoint.py [--game SPEC] [--workers 2] [--resume-workers 1] [--folder DIR]

Runs one iteration on ``--workers``, writes the checkpoint (the tables stream from the workers a
chunk at a time), reads it back onto ``--resume-workers``, writes it again from there and checks
that the two files hold the same bytes."""

from __future__ import annotations

import argparse
import filecmp
import os
import tempfile
import time
from pathlib import Path


def rss(kind: str = "VmRSS") -> int:
    """This process's resident memory (VmRSS) or its peak so far (VmHWM), in bytes."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(kind + ":"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="draw27(ranks=13,suits=4,hand=5,stacks=10)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--resume-workers", type=int, default=1)
    parser.add_argument("--folder", default=None, help="where the two checkpoints go (default: a temporary folder)")
    args = parser.parse_args()

    from distcfr.distributed.runtime import shutdown
    from distcfr.games.registry import load_game
    from distcfr.solve.checkpoint import SampledCheckpoint
    from distcfr.solve.launch import Launch
    from distcfr.solve.sampled_solver import SampledSolver

    def on(workers):
        return Launch(workers).sampled

    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        first, second = Path(folder) / "first.ckpt", Path(folder) / "second.ckpt"
        solver = SampledSolver(load_game(args.game), seed=1, shard_set=on(args.workers))
        solver.step()
        Path("/proc/self/clear_refs").write_text("5")  # resets this process's peak (VmHWM) to its resident size
        before = rss()
        start = time.perf_counter()
        solver.checkpoint().save(first)
        write = time.perf_counter() - start
        grew = rss("VmHWM") - before
        solver.close()
        start = time.perf_counter()
        resumed = SampledSolver.from_checkpoint(SampledCheckpoint.load(first), shard_set=on(args.resume_workers))
        read = time.perf_counter() - start
        resumed.checkpoint().save(second)
        resumed.close()
        same = filecmp.cmp(first, second, shallow=False)
        size = first.stat().st_size
    shutdown()
    print(f"{args.game}: checkpoint {size / 1e9:.2f} GB, written from {args.workers} workers in {write:.1f} s "
          f"({size / write / 1e9:.2f} GB/s), resumed onto {args.resume_workers} in {read:.1f} s "
          f"({size / read / 1e9:.2f} GB/s, the workers' start included); coordinator's peak memory "
          f"{max(grew, 0) / 1e6:,.0f} MB above its resident size while writing; written again after the resume: "
          f"{'the same bytes' if same else 'DIFFERENT BYTES'}; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()

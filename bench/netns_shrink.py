"""A run whose cluster shrinks: two nodes of one CPU (network namespaces, tests/netns_cluster.py),
a worker on each; the worker node's process group is killed (SIGKILL) after the run's first
checkpoint, and the run goes on with what the cluster can still give.

    sudo python bench/netns_shrink.py [--mode sampled|exact] [--health default|quick]

Prints the workers before and after, each recovery (iteration lost at, iteration resumed from, its
seconds, how long the failed call had waited), the run's wall time, the lines the run said about it,
and whether the strategy's bytes equal those of the same run without Ray."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from netns_cluster import NamespaceCluster  # noqa: E402

RUNS = {
    "sampled": ["--game", "draw27(ranks=8,suits=2,hand=3,stacks=10)", "--sampling", "--seed", "7", "--iterations",
                "200", "--batch", "2000", "--shards", "4", "--checkpoint-every", "5", "--bracket-samples", "2"],
    "exact": ["--game", "leduc", "--iterations", "2000", "--shards", "4", "--eval-every", "100000",
              "--checkpoint-every", "20"],
}


def actor_on(cluster: NamespaceCluster, node: int) -> bool:
    for pid in cluster.namespace_pids(cluster.namespace(node)):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::"):
                return True
        except OSError:
            pass
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=RUNS, default="sampled")
    parser.add_argument("--health", choices=("default", "quick"), default="quick",
                        help="Ray's node health checks: its defaults, or about 5 s to give a node up")
    args = parser.parse_args()
    argv = RUNS[args.mode]
    with tempfile.TemporaryDirectory(prefix="netns-shrink-") as folder:
        work = Path(folder)
        ckpt, out, summary = work / "run.ckpt", work / "cluster.msgpack", work / "cluster.json"
        with NamespaceCluster(nodes=2, cpus_per_node=1, quick_health_checks=args.health == "quick") as c:
            began = time.monotonic()
            driver = c.popen([sys.executable, "-m", "distcfr.train", *argv, "--workers", "2", "--address", c.address,
                              "--no-tables", "--out", str(out), "--summary-json", str(summary), "--checkpoint",
                              str(ckpt)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while not (actor_on(c, 1) and ckpt.exists()) and time.monotonic() - began < 120:
                time.sleep(0.1)
            killed = time.monotonic()
            c.kill_node(1)
            said, err = driver.communicate(timeout=600)
            ended = time.monotonic()
        data = json.loads(summary.read_text())
        local = work / "local.msgpack"
        subprocess.run([sys.executable, "-m", "distcfr.train", *argv, "--workers", "0", "--quiet", "--no-tables",
                        "--out", str(local)], check=True, capture_output=True)
        print(f"mode {args.mode}, health checks {args.health}: exit {driver.returncode}, workers {data['workers']} "
              f"at the start, {data['workers_at_end']} at the end, {ended - killed:.1f} s from the node's loss to "
              "the run's end")
        for r in data.get("recoveries", []):
            print(f"  recovery: lost at iteration {r['lost_at']}, resumed from {r['resumed_at']} on {r['workers']} "
                  f"worker(s), {r['seconds']:.1f} s (the failed call had waited {r['waited']:.1f} s)")
        for line in said.splitlines():
            if "workers lost" in line or "recovered" in line:
                print(" ", line.strip())
        print(f"  bytes equal to the run without Ray: {out.read_bytes() == local.read_bytes()}")
        print(f"  last stderr lines: {err.strip().splitlines()[-3:]}")


if __name__ == "__main__":
    main()

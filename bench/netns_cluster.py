"""A sampled solve on two Ray nodes joined by a (shaped) network, against one node.

    sudo python bench/netns_cluster.py [--game SPEC] [--batch N] [--iterations 2,6]

Each two-node row is a real cluster on this machine (tests/netns_cluster.py): one `ray start` of
one CPU per Linux network namespace, token auth on, joined through a bridge whose links are
unshaped veths, or limited to 10 Gbit/s or 1 Gbit/s each way (tc tbf), optionally with a one-way
delay (tc netem; a kernel without netem reports the row as unavailable). The one-node row is the
same command with `--workers 2` on a private embedded Ray. Every row runs two workers.

Per row the CLI runs twice, with the two iteration counts of `--iterations`, and the difference
of the summaries' `wall_seconds` gives the seconds per iteration without the fixed costs (actor
start, lookup tables, the final bracket, kept small with `--bracket-samples 2`); deals/s is the
deals of one iteration (2 x batch) over that. `link MB/s` is a TCP stream from node 1 to node 0
measured before the solves, to show the shaping holds; `MB/it` is what all nodes sent on their
links per iteration (the veths' kernel counters, the same difference of two runs). Every run's
strategy file must have the same bytes (the result does not depend on where the workers sit)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from netns_cluster import NamespaceCluster, NamespaceUnavailable  # noqa: E402

TRAIN = [sys.executable, "-m", "distcfr.train"]
ROWS = {  # name -> (link, one-way delay in ms); None: the one-node embedded run
    "embedded": None,
    "veth": (None, 0.0),
    "10gbit": ("10gbit", 0.0),
    "1gbit": ("1gbit", 0.0),
    "1gbit+2ms": ("1gbit", 2.0),
}

# node 1 sends `megabytes` to a listener on node 0; prints MB/s as the receiver saw them
STREAM_RECEIVER = """
import socket, sys, time
server = socket.create_server(("0.0.0.0", 5001)); print("ready", flush=True)
conn, _ = server.accept(); total, start = 0, time.perf_counter()
while chunk := conn.recv(1 << 20):
    total += len(chunk)
print(total / (time.perf_counter() - start) / 1e6)
"""
STREAM_SENDER = """
import socket, sys
s = socket.create_connection((sys.argv[1], 5001)); block = bytes(1 << 20)
for _ in range(int(sys.argv[2])):
    s.sendall(block)
s.close()
"""


def link_megabytes_per_s(cluster: NamespaceCluster, megabytes: int) -> float:
    receiver = cluster.popen([sys.executable, "-c", STREAM_RECEIVER], node=0, stdout=subprocess.PIPE, text=True)
    assert receiver.stdout.readline().strip() == "ready"
    cluster.run([sys.executable, "-c", STREAM_SENDER, cluster.ips[0], str(megabytes)], node=1, check=True,
                timeout=120)
    return float(receiver.communicate(timeout=60)[0])


def solve(argv: list[str], out: Path, cluster: NamespaceCluster | None) -> dict:
    """One CLI run; its summary, with the strategy file's bytes under "strategy"."""
    summary = out.with_suffix(".json")
    full = [*TRAIN, *argv, "--workers", "2", "--quiet", "--no-tables", "--out", str(out), "--summary-json",
            str(summary)]
    if cluster is None:
        run = subprocess.run(full, capture_output=True, text=True, timeout=900)
    else:
        run = cluster.run([*full, "--address", cluster.address], timeout=900)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(full)}: {run.stderr.strip()[-2000:]}")
    return {**json.loads(summary.read_text()), "strategy": out.read_bytes()}


def measure(args, name: str, cluster: NamespaceCluster | None, tmp: Path) -> dict:
    base = ["--game", args.game, "--sampling", "--seed", str(args.seed), "--batch", str(args.batch),
            "--bracket-samples", "2"]
    low, high = (int(n) for n in args.iterations.split(","))
    runs, sent = [], []
    for n in (low, high):
        before = cluster.sent_bytes() if cluster else 0
        runs.append(solve([*base, "--iterations", str(n)], tmp / f"{len(os.listdir(tmp))}.msgpack", cluster))
        sent.append(cluster.sent_bytes() - before if cluster else 0)
    seconds = (runs[1]["wall_seconds"] - runs[0]["wall_seconds"]) / (high - low)
    row = {"row": name, "nodes": runs[1]["nodes"], "s_per_iteration": seconds,
           "deals_per_s": 2 * args.batch / seconds, "strategy": runs[1]["strategy"]}
    if cluster:
        row["mb_per_iteration"] = (sent[1] - sent[0]) / (high - low) / 1e6
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="draw27(ranks=8,suits=2,hand=4,stacks=1:20:1)")
    parser.add_argument("--batch", type=int, default=100_000, help="sampled deals per player update")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", default="2,6", help="the two iteration counts whose difference is timed")
    parser.add_argument("--link-megabytes", type=int, default=256, help="size of the link check's TCP stream")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"which rows, comma-separated (default: all of "
                        f"{','.join(ROWS)}: one node; two nodes unshaped, 10gbit, 1gbit, 1gbit with 2 ms delay)")
    args = parser.parse_args()

    print(f"{args.game}, sampled, batch {args.batch:,}, 2 workers of 1 CPU, on {os.cpu_count()} cores", flush=True)
    results, reference = [], None
    with tempfile.TemporaryDirectory(prefix="netns_bench") as tmp:
        for name in args.rows.split(","):
            shape = ROWS[name]
            started = time.perf_counter()
            try:
                if shape is None:
                    row = measure(args, name, None, Path(tmp))
                else:
                    with NamespaceCluster(nodes=2, cpus_per_node=1, link=shape[0], delay_ms=shape[1]) as cluster:
                        link = link_megabytes_per_s(cluster, args.link_megabytes)
                        row = {**measure(args, name, cluster, Path(tmp)), "link": link}
            except NamespaceUnavailable as e:
                row = {"row": name, "unavailable": str(e)}
            reference = reference or row.get("strategy")
            row["same_bytes"] = row.get("strategy") == reference if "strategy" in row else None
            row["bench_seconds"] = time.perf_counter() - started
            results.append(row)
            print(f"  {name}: done in {row['bench_seconds']:.0f} s", file=sys.stderr, flush=True)

    print(f"\n{'':12} {'nodes':>5} {'link MB/s':>10} {'MB/it':>7} {'s/iteration':>12} {'deals/s':>10} "
          f"{'vs 1 node':>10}  same bytes")
    base = next((r["s_per_iteration"] for r in results if "s_per_iteration" in r and r["nodes"] == 1), None)
    for r in results:
        if "unavailable" in r:
            print(f"{r['row']:12} unavailable: {r['unavailable']}")
            continue
        link = f"{r['link']:,.0f}" if "link" in r else "-"
        sent = f"{r['mb_per_iteration']:.1f}" if "mb_per_iteration" in r else "-"
        ratio = f"{r['s_per_iteration'] / base:.2f}x" if base else "-"
        print(f"{r['row']:12} {r['nodes']:>5} {link:>10} {sent:>7} {r['s_per_iteration']:>12.3f} "
              f"{r['deals_per_s']:>10,.0f} {ratio:>10}  {'yes' if r['same_bytes'] else 'NO'}")


if __name__ == "__main__":
    main()

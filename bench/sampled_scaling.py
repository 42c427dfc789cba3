"""A sampled game on Ray (5-card draw27 by default, or nl27): one vs two workers, bytes moved and
memory per worker.

    python bench/sampled_scaling.py [--game SPEC] [--batch N] [--iterations 2] [--json FILE]

Each worker owns the table rows of its hand classes and updates them itself; per half-iteration
only the updated player's current strategy moves: each worker puts its rows (float32) in the
object store, where the others on its node read them in place; a worker on another node is sent
only the rows its deals read (``--workers 2n`` times 2 workers read that way on this machine).

nl27 has key tables besides (post-draw rows every class shares, each worker owning a slice of
them): per half-iteration every worker makes int64 sums of the updated player's key rows its deals
reached and cuts them into the owners' slices; each owner adds everyone's slice of its rows and
updates them (a reduce-scatter), and every worker gathers the owners' new strategy of the player's
key tables (an all-gather, float32). Neither the strategy nor a worker's sums shrink with more
workers; the coordinator moves none of them.

The workers time themselves: the seconds each spends evaluating its deals (the part that splits)
and in the rest of its half-iterations (updates, regret matching, the strategy's puts), and the
coordinator's wall time beyond the slowest worker (Ray's calls and waits). Their sum over the
workers against one worker's says whether a shortfall from 2x is the split's or the cores'.

``--json FILE`` writes the measured constants (seconds per iteration on 1 and 2 workers, the work
that splits and the work that does not, the strategy bytes each iteration puts) and the speed-ups:
``speedup_2`` measured, ``speedup_16`` and ``speedup_64`` from the model over 10 Gb/s links, with
the bytes sent per worker (``bytes_sent_per_worker_W``): the rows its deals read, packed as the
workers pack them, from the one-worker run's current strategy; for nl27 also the key tables'
traffic (``key_...``) and the bytes a worker's link carries per iteration in all
(``bytes_per_iteration_per_worker_W``)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

import numpy as np

NETWORK_BYTES_PER_S = 1.25e9  # a 10 Gb/s link between nodes (model only)


@dataclasses.dataclass(frozen=True)
class KeyTraffic:
    """Per iteration, the key tables' traffic of one worker (nl27; all zero for a game without key
    tables): ``strategy`` bytes it is sent (the key tables that changed), ``sums`` bytes of int64 key
    sums it sends on (its slices, to the workers that add them), and ``add_seconds`` per number of
    workers W, the seconds the slowest of W workers takes to add everyone's slice of the sums."""

    strategy: int = 0
    sums: int = 0
    add_seconds: dict = dataclasses.field(default_factory=dict)

    @property
    def bytes(self) -> int:
        return self.strategy + self.sums


def peak_rss(pid: int) -> int:
    """Peak resident memory of a process in bytes (Linux: VmHWM)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="draw27(ranks=13,suits=4,hand=5,stacks=10)")
    parser.add_argument("--batch", type=int, help="deals per half-iteration (default: the solver's, 8 per class)")
    parser.add_argument("--shards", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--workers", default="0,1,2,2n", help="worker counts to time, 0 for in-process, N with "
                        "n for N workers each read as if on its own node (1 and 2 are needed for the ratio and "
                        "the model)")
    parser.add_argument("--json", metavar="FILE", help="write the measured constants and the speed-ups here")
    args = parser.parse_args()

    from distcfr.distributed.runtime import start_embedded
    from distcfr.engine.class_blocks import LocalClassBlocks
    from distcfr.engine.kernels import sampled_kernel
    from distcfr.engine.memory import sampled_estimate
    from distcfr.engine.sampled_kernel import class_tables
    from distcfr.games.registry import load_game
    from distcfr.solve.sampled_solver import SampledSolver, default_batch

    game = load_game(args.game).sampled_form()
    rows = []
    print(f"{args.game}, batch {args.batch or default_batch(sampled_kernel(game)):,} deals per half-iteration, "
          f"{args.shards} shards, {os.cpu_count()} CPUs, numpy {np.__version__}")
    print("| workers | s / iteration | deals/s | strategy put per iteration (button + big blind half) "
          "| memory per worker: estimate | peak RSS | each worker: evaluating deals + the rest, s / iteration "
          "| beyond the slowest worker |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    for entry in args.workers.split(","):
        workers, apart = int(entry.rstrip("n")), entry.endswith("n")

        def factory(spec, n_shards, seed, schedule, workers=workers, apart=apart):
            if workers == 0:
                return LocalClassBlocks(spec, n_shards, seed, schedule)
            start_embedded(num_cpus=max(workers, os.cpu_count() or 1))
            return timed_shards_class(apart)(spec, n_shards, workers, seed, schedule)

        solver = SampledSolver(game, batch=args.batch, seed=1, shards=args.shards, shard_set=factory)
        solver.step()  # warm-up: actors build their lookup tables, first strategy broadcast
        worker_seconds(solver)
        for name in ("key_sums_taken", "key_strategy_spread"):
            getattr(solver.shards, name, []).clear()
        start = time.perf_counter()
        for _ in range(args.iterations):
            solver.step()
        if workers:  # the last half's key-table calls run on after step returns: wait for every actor
            solver.shards.pids()
        seconds = (time.perf_counter() - start) / args.iterations
        inside = worker_seconds(solver, args.iterations)
        kernel = solver.kernel  # the class rows each half-iteration puts in the object store (float32):
        moved = [sum(kernel.n_classes * int(np.prod(b.shape)) * 4 for b in class_tables(kernel) if b.player == p)
                 for p in (0, 1)]
        memory = sampled_estimate(solver.kernel, solver.batch, args.shards, max(workers, 1))
        pids = solver.shards.pids() if workers else [os.getpid()]
        peak = max(peak_rss(pid) for pid in pids)
        rows.append((entry, seconds, 2 * solver.batch / seconds, moved, memory.per_worker, peak, inside))
        if entry == "1":  # what a worker on its own node would be sent, from this run's current strategy
            sent = {w: sent_bytes(solver, w) for w in (2, 16, 64)}
            keys = key_traffic(solver, args.iterations)
        solver.close()
        print_row(*rows[-1])
    by_workers = {row[0]: row for row in rows}
    if {"1", "2"} <= set(by_workers):
        one, two = by_workers["1"], by_workers["2"]
        model = print_ratio_and_model(one[1], two[1], two[3], solver.batch, one[6], sent, keys)
        if args.json:
            import json

            model |= {"game": args.game, "batch": solver.batch, "blocks": args.shards, "iterations": args.iterations,
                      "cpus": os.cpu_count(), "per_worker_seconds_2": [list(t) for t in two[6]]}
            with open(args.json, "w") as out:
                json.dump(model, out, indent=2)
            print(f"constants and speed-ups written to {args.json}")
        evaluating = [sum(deals for _, deals, _ in row[6]) for row in (one, two)]
        running = [sum(cpu for _, _, cpu in row[6]) / total for row, total in zip((one, two), evaluating)]
        print(f"evaluating the deals took {evaluating[1]:.2f} s of the 2 workers' time per iteration against "
              f"{evaluating[0]:.2f} s on 1 ({evaluating[1] / evaluating[0]:.2f}x: the same arithmetic, slower with "
              f"both cores busy); at 1 worker's speed 2 workers would have gained "
              f"{one[1] / (two[1] - (evaluating[1] - evaluating[0]) / 2):.2f}x; the slower worker spent "
              f"{abs(two[6][0][0] - two[6][1][0]):.2f} s per iteration more than the other in its half-iterations; "
              f"while evaluating, the workers' threads ran on a CPU {running[0]:.0%} of the time on 1 worker and "
              f"{running[1]:.0%} on 2 (the rest another process had the core)")
    from distcfr.distributed.runtime import shutdown

    shutdown()


def print_row(workers: str, seconds: float, rate: float, moved: list[int], per_worker: int, peak: int,
              inside: list) -> None:
    split = ", ".join(f"{deals:.2f} + {half - deals:.2f}" for half, deals, _ in inside) or "-"
    beyond = f"{seconds - max(half for half, _, _ in inside):.2f} s" if inside else "-"
    where = {"0": "in-process"}.get(workers, workers.replace("n", " (each as on its own node)"))
    print(f"| {where} | {seconds:.2f} | {rate:,.0f} | {moved[0] / 1e6:.0f} + {moved[1] / 1e6:.0f} MB "
          f"| {per_worker / 1e6:.0f} MB | {peak / 1e6:.0f} MB | {split} | {beyond} |", flush=True)


def timed_shards_class(apart: bool = False):
    """RayClassBlocks whose actors add up the seconds of their half-iterations and, within them,
    of evaluating their deals (``take_seconds``); with ``apart``, every actor reads the others'
    rows as if on another node (sent only the rows its deals read)."""
    from distcfr.distributed.ray_shards import RayClassBlocks, _RayClassBlockGroup

    class TimedRowGroup(_RayClassBlockGroup):
        def __init__(self, *args):
            super().__init__(*args)
            self.seconds = [0.0, 0.0, 0.0]  # in half-iterations (and plan, serve), evaluating deals, of it on a CPU
            evaluate = self.kernel.class_sums

            def timed(*a, **k):
                start, cpu = time.perf_counter(), time.thread_time()
                try:
                    return evaluate(*a, **k)
                finally:
                    self.seconds[1] += time.perf_counter() - start
                    self.seconds[2] += time.thread_time() - cpu

            self.kernel.class_sums = timed

        def _timed(self, method, *args):
            start = time.perf_counter()
            try:
                return method(*args)
            finally:
                self.seconds[0] += time.perf_counter() - start

        def half_iteration(self, *args):
            return self._timed(super().half_iteration, *args)

        def plan(self, *args):
            return self._timed(super().plan, *args)

        def serve(self, *args):
            return self._timed(super().serve, *args)

        def update_keys(self, *args):  # its slice of the key rows: splits with the workers
            return self._timed(super().update_keys, *args)

        def take_seconds(self) -> list[float]:
            seconds, self.seconds = self.seconds, [0.0, 0.0, 0.0]
            return seconds

    class TimedSampledShards(RayClassBlocks):
        group_class = TimedRowGroup

        def __init__(self, *args):
            self.key_sums_taken: list = []  # per half, the references to every actor's key sums (its slices)
            self.key_strategy_spread: list = []  # per gathering of the key strategy, the owners' slices
            super().__init__(*args)
            if apart:
                self.node_ids = list(range(len(self.actors)))

        def _taken_key_sums(self, player, iteration):
            taken = super()._taken_key_sums(player, iteration)
            self.key_sums_taken.append(taken)
            return taken

        def _spread_keys(self, slices):
            self.key_strategy_spread.append(slices)
            super()._spread_keys(slices)

    return TimedSampledShards


def key_traffic(solver, iterations: int, workers: tuple[int, ...] = (16, 64)) -> KeyTraffic:
    """The key tables' traffic per iteration of the one worker of ``solver`` (Ray, timed: the key
    strategy it gathered and the key sums it cut into slices in the last ``iterations`` iterations),
    and for each number of ``workers`` W the seconds the slowest of them takes to add its slice of W
    such sums (:func:`~distcfr.engine.class_blocks.added_key_sums` of W copies of each slice; timed here)."""
    import ray

    from distcfr.engine.class_blocks import added_key_sums, block_bounds

    shards = solver.shards
    if not shards.key_tables or not shards.key_sums_taken:
        return KeyTraffic()
    received = [ray.get(taken[0][0]) for taken in shards.key_sums_taken]  # one worker: one slice, all its sums
    gathered = [part for slices in shards.key_strategy_spread for part in ray.get(slices)]
    strategy = sum(rows.nbytes for part in gathered for _, rows in part.values())
    sums = sum(a.nbytes for part in received for name in part for a in part[name])
    add = {}
    for w in workers:
        seconds = 0.0
        for part in received:
            slowest = 0.0
            for j in range(w):
                piece = {}
                for name, (rows, q, reach) in part.items():
                    bounds = block_bounds(shards.key_starts[name][-1], w)
                    lo, hi = np.searchsorted(rows, bounds[j:j + 2])
                    if hi > lo:
                        piece[name] = (rows[lo:hi], q[lo:hi], reach[lo:hi])
                start = time.perf_counter()
                added_key_sums([piece] * w)
                slowest = max(slowest, time.perf_counter() - start)
            seconds += slowest
        add[w] = seconds / iterations
    return KeyTraffic(strategy // iterations, sums // iterations, add)


def rows_read(spec: str, schedule, workers: int, seed: int = 1, iteration: int = 2) -> list[np.ndarray]:
    """Per player's half, the other player's strategy rows that the first of ``workers`` workers (one
    class block each), each on its own node, is sent (ClassBlockGroup.plan; its tables are never
    touched, so never resident)."""
    from distcfr.engine.class_blocks import ClassBlockGroup

    group = ClassBlockGroup(spec, workers, 0, 1, seed, schedule)  # the run's DealSchedule
    return [group.plan(player, iteration) for player in (0, 1)]


def worker_seconds(solver, iterations: int = 1) -> list[tuple[float, float, float]]:
    """Per worker, (seconds in half-iterations, of them evaluating deals, of those its thread ran on
    a CPU) per iteration since the last call; none in-process."""
    actors = getattr(solver.shards, "actors", None)
    if actors is None:
        return []
    import ray

    seconds = ray.get([actor.take_seconds.remote() for actor in actors])
    return [tuple(t / iterations for t in times) for times in seconds]


def sent_bytes(solver, workers: int) -> tuple[int, int]:
    """(bytes as sent, bytes as float32 rows) of the strategy rows one of ``workers`` workers, each on
    its own node, is sent per iteration: the rows its deals read of the other player's blocks, both
    halves, packed as ``serve`` packs them from the current strategy of ``solver`` (one Ray worker)."""
    import ray

    owner = solver.shards.actors[0]
    packed = plain = 0
    for player, ids in enumerate(rows_read(solver.game.spec, solver.schedule, workers, solver.seed)):
        sent = ray.get(owner.serve.remote(1 - player, ids))
        packed += sent["ids"].nbytes + sum(a.nbytes for name, part in sent.items() if name != "ids" for a in part[1:])
        plain += sum(int(np.prod(part[0])) * 4 for name, part in sent.items() if name != "ids")
    return packed, plain


def print_ratio_and_model(one: float, two: float, moved: list[int], batch: int, timed_one: list,
                          sent: dict[int, tuple[int, int]], keys: KeyTraffic = KeyTraffic()) -> dict:
    """Print 2 workers against 1 and the model's 16 and 64 workers; return the constants and speed-ups.

    The model: t(W) = a / W + b + L (c + s) + transfers, each of W workers on its own node sent, each
    half over a 10 Gb/s link, the other player's strategy rows its deals read, packed (``sent``:
    (packed, float32) bytes; ``..._unpacked`` counts them as float32 rows, and ``..._all_rows`` every
    row of every other worker, as before), plus the key strategy that changed (``keys``, on the same
    link, gathered from its owners; it does not shrink with W); the workers' key sums are added as a
    reduce-scatter: each worker's slices cross the links to their owners ((W - 1) / W of a worker's
    sums, every link at once), then the slowest owner adds its slice of everyone's (c_W); the
    owners' updates of their slices split with the workers (in a). Its constants are measured two ways: from the one
    worker's own timing (a: its half-iterations, which split by class block; b: the coordinator's
    time beyond it), the ``speedup_16`` / ``speedup_64`` figures; and, as issue 9 did, from the wall
    times of 1 and 2 workers (``..._from_walls``), which also counts as "not splitting" what two
    busy cores of one machine lose to each other (shared cache and memory bandwidth), a cost
    separate machines do not share."""
    print(f"2 workers vs 1: {one / two:.2f}x")
    moved = sum(moved)
    out = {"seconds_1": one, "seconds_2": two, "strategy_bytes_per_iteration": moved,
           "link_bytes_per_second": NETWORK_BYTES_PER_S, "speedup_2": one / two}
    out |= {f"bytes_sent_per_worker_{w}": packed for w, (packed, _) in sent.items()}
    out |= {f"bytes_of_rows_read_per_worker_{w}": plain for w, (_, plain) in sent.items()}
    if keys.bytes:
        out |= {"key_strategy_bytes_per_iteration_per_worker": keys.strategy,
                "key_sums_bytes_per_iteration_per_worker": keys.sums,
                **{f"key_sums_add_seconds_{w}": seconds for w, seconds in keys.add_seconds.items()}}
        out |= {f"bytes_per_iteration_per_worker_{w}": packed + keys.bytes for w, (packed, _) in sent.items()}
        print(f"key tables, per iteration: every worker gathers the strategy that changed ({keys.strategy / 1e6:.1f} "
              f"MB) and sends on its int64 key sums ({keys.sums / 1e6:.1f} MB), whatever the number of workers; "
              "adding a slice of everyone's takes the slowest worker "
              + ", ".join(f"{seconds:.3f} s at {w}" for w, seconds in keys.add_seconds.items())
              + "; a worker's link carries "
              + ", ".join(f"{(packed + keys.bytes) / 1e6:.0f} MB at {w} workers" for w, (packed, _) in sent.items()))
    worker = sum(half for half, _, _ in timed_one)
    ways = {"": (worker, max(one - worker, 0.0)), "_from_walls": (2 * (one - two), max(2 * two - one, 0.0))}
    for suffix, (a, b) in ways.items():
        out[f"splits_seconds{suffix}"], out[f"does_not_split_seconds{suffix}"] = a, b
        for workers in (16, 64):
            rows_in = {"": sent[workers][0], "_unpacked": sent[workers][1], "_all_rows": moved * (1 - 1 / workers)}
            transfers = {name: bytes_in + keys.strategy for name, bytes_in in rows_in.items()}
            crossing = keys.sums * (workers - 1) / workers / NETWORK_BYTES_PER_S
            adding = keys.add_seconds.get(workers, 0.0) + crossing if keys.bytes else 0.0
            for rows, bytes_in in transfers.items():
                network = bytes_in / NETWORK_BYTES_PER_S
                t = a / workers + b + adding + network
                out[f"speedup_{workers}{suffix}{rows}"] = one / t
                out[f"transfer_seconds_{workers}{rows}"] = network
                name = f"{suffix}{rows}".replace("_", " ")
                added = f", {adding:.2f} s adding key sums" if keys.bytes else ""
                print(f"model{name}, {workers} workers on {workers} nodes: {t:.2f} s per iteration, "
                      f"{2 * batch / t:,.0f} deals/s, {one / t:.1f}x one worker (a = {a:.2f} s splits, b = {b:.2f} s "
                      f"does not{added}, {bytes_in / 1e9:.2f} GB sent per worker: {network:.2f} s)")
    return out


if __name__ == "__main__":
    main()

"""How many bytes a solve will use, estimated from the tree and the deal count before anything
large is built (postflop-solver's lifecycle: build the tree, report memory, allocate, solve).

The formulas mirror the allocations of ``Shard``, ``CFRKernel``, ``BestResponseKernel`` and the
solver's tables; tests/test_memory.py holds them to the measured peak."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from distcfr.engine.class_blocks import PUBLISH_ROWS
from distcfr.engine.layout import Layout
from distcfr.engine.sampled_kernel import class_tables, key_tables
from distcfr.errors import BadParameter
from distcfr.games.tree import TERMINAL

F8 = 8  # bytes of a float64 or int64 cell
PROCESS_BASE = 4_000_000  # tree, labels and lookup tables (draw27's hand ranks): a few MB whatever the size
CHECKPOINT_STREAM = 3 << 26  # a streamed sampled checkpoint's chunks in flight (io.sampled_checkpoint)
RAY_PROCESSES = 500_000_000  # Ray's own processes beside the workers: GCS, raylet, dashboard, agents, monitors


@dataclass(frozen=True)
class MemoryEstimate:
    coordinator: int  # the solver's tables and strategy snapshots
    deals: int  # every deal of the game, built once per process that builds shards
    per_worker: int  # peak of one worker holding an equal share of the shards (deals included)
    workers: int  # 0: the shards live in this process
    pass_bytes: int  # strategy-dependent arrays one CFR pass sweeps (a proxy for its time)
    bracket: int = 0  # sampled solves: what an exploitability bracket adds at the coordinator

    @property
    def with_bracket(self) -> int:
        """Peak bytes on this machine while a bracket is computed beside the workers."""
        return self.this_machine + self.bracket

    @property
    def this_machine(self) -> int:
        """Peak bytes on this machine (a cluster's workers sit on other machines too, but an
        embedded Ray's all sit here)."""
        if self.workers == 0:
            return self.coordinator + self.per_worker
        return self.coordinator + self.workers * self.per_worker + RAY_PROCESSES

    def describe(self) -> str:
        where = ("in this process" if self.workers == 0 else
                 f"{self.workers} workers x {_gb(self.per_worker)}, Ray's own processes {_gb(RAY_PROCESSES)}")
        bracket = f", a bracket {_gb(self.bracket)} more" if self.bracket else ""
        return (f"memory: about {_gb(self.this_machine)} ({_gb(self.coordinator)} at the coordinator, "
                f"shards {where}{bracket})")

    def as_dict(self) -> dict:
        return {"tables_bytes": self.coordinator, "per_worker_bytes": self.per_worker, "workers": self.workers,
                "this_machine_bytes": self.this_machine, "bracket_bytes": self.bracket}


def _gb(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{n / 1e3:.0f} kB"


def _tree_counts(layout: Layout) -> dict:
    tree = layout.tree
    parent_player = tree.player[tree.parent[1:]]  # (N-1,) owner of each edge
    levels = [int(((tree.player[lo:hi] != TERMINAL)).sum())
              for lo, hi in zip(tree.level_start[:-1], tree.level_start[1:])]
    return {"N": tree.n_nodes, "E": [int((parent_player == p).sum()) for p in (0, 1)],
            "dec": [int((tree.player == p).sum()) for p in (0, 1)], "T": int((tree.player == TERMINAL).sum()),
            "level_dec": levels}


def shard_bytes(layout: Layout, d: int) -> tuple[int, int, int]:
    """(persistent, alive during a best response, transient peak) bytes of one shard of d deals."""
    c = _tree_counts(layout)
    n, b, a, table = c["N"], layout.n_variants, layout.max_actions, layout.n_variants * layout.n_infosets
    nbd = n * b * d * F8
    # weights, iset, uterm, edge and decision indices
    base = (1 + n) * d * F8 + nbd + sum(c["E"]) * b * d * F8 + sum(c["dec"]) * b * d * F8
    cfr = 6 * nbd + table * layout.max_actions * F8  # factor, reach (2 each), edge_prob, utility; last sigma seen
    br_index = sum(k * b * d * F8 * (1 + a) for k in c["level_dec"])  # row_index and q_index per level
    build = c["T"] * b * d * F8 + layout.game.terminal_work_bytes(d) + max(c["E"]) * d * F8
    cfr_step = max(c["E"]) * b * d * F8 * 2 + max(c["dec"]) * b * d * F8 + table * a * F8
    br_start = 5 * nbd  # a fresh StrategyReach, dropped after the copies
    br_level = max(c["level_dec"]) * b * d * F8 * (2 * a + 1)  # kids, kids * reach, reach
    return base + cfr + br_index, 8 * nbd, max(build, cfr_step, br_start, br_level)


def estimate(layout: Layout | GameSizes, n_shards: int, workers: int) -> MemoryEstimate:
    """The memory of a solve of ``layout``'s game cut into ``n_shards`` shards on ``workers``
    workers (0: in this process); ``layout`` may be the cheap :func:`game_sizes`."""
    game = layout.game
    n_deals = layout.n_deals
    sizes = np.diff([n_deals * k // n_shards for k in range(n_shards + 1)])
    if game.exact_form == "ranges":
        from distcfr.engine.ranges import range_shard_bytes

        deals = 0
        starts = np.cumsum([0, *sizes])
        per_shard = [range_shard_bytes(layout, int(a), int(z)) for a, z in zip(starts[:-1], starts[1:])]
    else:
        deals = n_deals * F8 * (game.cards_per_deal + 1)
        per_shard = [shard_bytes(layout, int(d)) for d in sizes]
    holders = max(workers, 1)
    blocks = np.array_split(np.arange(n_shards), holders)
    per_worker = max(sum(per_shard[i][0] + per_shard[i][1] for i in blk) + max(per_shard[i][2] for i in blk)
                     for blk in blocks if len(blk)) + deals + PROCESS_BASE
    table = layout.n_variants * layout.n_infosets * layout.max_actions * F8
    coordinator = table * 7  # regrets, sums, sigma, prediction, uniform, an average strategy and its total
    pass_bytes = sum(6 * layout.tree.n_nodes * layout.n_variants * int(d) * F8 for d in sizes)
    return MemoryEstimate(coordinator, deals, per_worker, workers, pass_bytes)


@dataclass(frozen=True)
class GameSizes:
    """What ``estimate`` reads of a Layout, counted from the game's public tree and its private
    labels per (player, observation) without building a Layout (its labels, masks and indices)."""

    game: object
    tree: object
    n_variants: int
    n_infosets: int
    max_actions: int
    n_deals: int


def game_sizes(game) -> GameSizes:
    """The sizes of ``game``'s tables; BadParameter when the game is too large to enumerate (its
    ``exact_size_problem``), before anything of the size of its deals is built."""
    problem = game.exact_size_problem()
    if problem:
        raise BadParameter(f"{game.spec} is not solved exactly: {problem}")
    tree = game.tree
    seen: dict[tuple[int, str], int] = {}
    for node in np.flatnonzero(tree.player != TERMINAL):
        history, player = tree.histories[node], int(tree.player[node])
        key = (player, game.observation(history, player))
        if key not in seen:
            seen[key] = len(game.private_labels(history, player))
    return GameSizes(game, tree, len(game.variant_labels), sum(seen.values()), tree.max_actions, game.n_deals)


def exact_estimate(game, n_shards: int | None = None, workers: int = 0) -> MemoryEstimate:
    """The memory of solving (or evaluating) ``game`` exactly with ``n_shards`` shards (default:
    the game's) on ``workers`` workers, from :func:`game_sizes`: no Layout is built."""
    sizes = game_sizes(game)
    return estimate(sizes, min(n_shards or game.default_shards, sizes.n_deals), workers)


def class_tables_bytes(kernel) -> int:
    """The bytes of one strategy of a sampled game as its readers hold it: the float16 tables of
    its file and their float32 copy."""
    cells = sum(kernel.table_rows(b) * int(np.prod(b.shape)) for b in kernel.strategy_tables)
    return cells * (2 + 4) + PROCESS_BASE


def check_fits(needed: int, what: str, available: int | None = None, advice: str = "use fewer stacks or a "
               "smaller game") -> int:
    """The one memory check of every command and loader: BadParameter naming the estimate when
    ``needed`` bytes (an estimate's ``this_machine``) exceed ``available`` (default: what this
    machine can still give). Returns the bytes available."""
    available = available_bytes() if available is None else available
    if needed > available:
        raise BadParameter(f"{what} needs about {needed / 1e9:.1f} GB here, {available / 1e9:.1f} GB are available: "
                           f"{advice}")
    return available


def available_bytes() -> int:
    """Memory this machine can still give (MemAvailable), or its physical size where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import os

    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def stack_cost(kernel, batch: int, n_shards: int, workers: int) -> tuple[int, int]:
    """(bytes on this machine without any stack, bytes each stack adds) of a sampled solve: every table
    has a column per stack (:func:`sampled_estimate` of the same kernel with 0 and 1 stacks)."""
    def with_stacks(b: int) -> int:
        tables = tuple(dataclasses.replace(t, shape=(*t.shape[:-2], b, t.shape[-1])) for t in kernel.strategy_tables)
        proxy = SimpleNamespace(strategy_tables=tables, n_classes=kernel.n_classes, deal_width=kernel.deal_width,
                                table_rows=kernel.table_rows)
        return sampled_estimate(proxy, batch, n_shards, workers).this_machine

    base = with_stacks(0)
    return base, with_stacks(1) - base


def sampled_estimate(kernel, batch: int, n_shards: int, workers: int) -> MemoryEstimate:
    """The memory of a chance-sampled solve (:mod:`distcfr.engine.class_blocks`): each worker
    holds its classes' float32 regrets and sums and one shard's deals, sums and strategy (on a
    cluster also its half's deals, drawn ahead, and the other nodes' rows they read); the
    current strategy (float32, every class) lies once in the object store, counted with the
    coordinator, which streams checkpoints a few chunks at a time. Key tables (rows every class
    shares) are cut into the workers' slices, and every worker reads their whole strategy. A
    bracket adds the float16 average strategy and latest iterate, published by the workers for each
    other to read. At the end of a run the current strategy is let go before the final bracket, and
    the average then gathered (twice its size while its parts are joined) fits in its place."""
    per_class = sum(int(np.prod(b.shape)) for b in class_tables(kernel))  # table cells per hand class
    keyed = [kernel.table_rows(b) * int(np.prod(b.shape)) for b in key_tables(kernel)]  # cells of the key tables
    strategy = kernel.n_classes * per_class * 4
    rows = -(-kernel.n_classes // max(workers, 1))
    shard_rows = -(-kernel.n_classes // n_shards)
    shard_deals = -(-batch // n_shards) + shard_rows
    shard = shard_rows * per_class * 4 * 6 + shard_deals * kernel.deal_width * 4 * 12  # sums, update; deals, shuffle
    publish = min(PUBLISH_ROWS, rows) * per_class * (4 + 2)  # the buffers of published float32 and float16 rows
    per_worker = 2 * rows * per_class * 4 + shard + publish + PROCESS_BASE + 64_000_000  # rank and class lookups
    # key tables: their strategy read by every worker, its slice's regrets, sums and strategy, one
    # player's int64 sums (and reach) a half adds up, and everyone's sums of its slice added
    per_worker += sum(keyed) * 4 + sum(-(-k // max(workers, 1)) for k in keyed) * 4 * 3
    sums = max(keyed, default=0) * F8 * 2
    per_worker += sums + (sums // workers if workers > 1 else 0)
    if workers > 1:  # on a cluster: a half's deals drawn ahead, and the rows other nodes send (float32 at most)
        deals = -(-batch // workers) + rows
        player_cells = max(sum(int(np.prod(b.shape)) for b in class_tables(kernel) if b.player == p) for p in (0, 1))
        per_worker += deals * kernel.deal_width * 6 + min(kernel.n_classes - rows, deals) * player_cells * 4
    coordinator = strategy + CHECKPOINT_STREAM
    if workers:  # the object store (counted here) also holds each worker's key sums on their way to the owners
        coordinator += workers * sums
    bracket = strategy  # the float16 average and latest iterate, published by the workers beside the current strategy
    return MemoryEstimate(coordinator, 0, per_worker, workers, 0, bracket)

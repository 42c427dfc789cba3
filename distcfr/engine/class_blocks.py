"""Class blocks of a chance-sampled solve: the hand classes cut into fixed runs, each block owning its
classes' table rows.

The classes are cut into ``n_blocks`` blocks. The half-iteration of player u at iteration t gives
every class its turn of ``batch`` deals (``class_deal_counts``: the batch walks round the classes,
so each class gets batch / classes deals per half-iteration on average, the same for every class);
block s draws the deals of its block's classes from a counter-based stream keyed by
(seed, 2t + u, s), in which u holds a hand of the class and every other card is uniform from the
rest of the deck. It evaluates them against the current strategies and updates u's regret and
strategy-sum rows of its block as the update rule says (``apply_update``).

A group of consecutive blocks (a Ray actor, or every block in-process) owns those rows. Between
half-iterations only the updated player's current strategy moves (each group's rows, read in place
by the others), and a run's bits depend only on the seed: the same on any number of workers.

Key tables (rows every class shares: nl27's post-draw keys) are cut the same way: blocks [first,
stop) of a group own the same share of every key table's rows. Every group plays the whole key
strategy; after a half-iteration each group cuts its int64 sums of the player's key rows into the
owners' slices, each owner adds everyone's slice of its rows and updates them (a reduce-scatter),
and every group gathers the owners' new strategy slices (an all-gather). Per
class, the deals are the player's own class under suit isomorphism: scaling a class's sums by a
constant (its share of the hands) changes neither regret matching nor the average strategy.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Iterator

import numpy as np

from distcfr.engine.deal_schedule import DealSchedule
from distcfr.engine.kernels import sampled_kernel
from distcfr.engine.row_table import HeldRows, RowTable
from distcfr.engine.rules import Rule, regret_matching, rule_from_fields, update_sampled_rows
from distcfr.engine.sampled_bracket import (
    REFINE,
    BracketSettings,
    BracketSums,
    ChunkSums,
    bracket_chunk,
    chunk_total,
    focus,
    focus_chunk,
    value_chunk,
)
from distcfr.engine.sampled_kernel import KEY_SUM_UNIT, ClassTotals, class_tables, key_tables
from distcfr.engine.streams import SOLVE_DOMAIN
from distcfr.games.registry import load_game
from distcfr.stopping import abandon_if_stopped

TABLE_DTYPE = np.float32  # regrets and sums: half the memory of float64 where the tables are largest
PUBLISH_ROWS = 4096  # strategy rows per object-store object: a worker never holds a copy of all of its rows
CACHE_BYTES = 1 << 20  # rows a row-wise pass takes at a time: its temporaries stay in a core's cache
ROWS_IN_FLIGHT = 2  # table chunks on their way at once while a checkpoint streams
RUN_DEALS = 1 << 14  # deals of consecutive blocks evaluated in one call at most (see ClassBlockGroup._run_end)


def cache_rows(table: np.ndarray) -> int:
    """Rows of ``table`` a row-wise pass takes at a time (``CACHE_BYTES`` of them): passes over a
    table of gigabytes in cache-sized pieces instead of whole-table temporaries run several times
    faster (bench/sampled_scaling.py times the workers' table passes)."""
    return max(1, CACHE_BYTES // max(1, table[:1].nbytes))


def regret_matching_rows(table: np.ndarray, dtype=np.float32, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`regret_matching` of a (C, ...) table as ``dtype`` (into ``out`` if given), a
    cache-sized piece of rows at a time (the same bits: every row's arithmetic is its own)."""
    out = np.empty(table.shape, dtype) if out is None else out
    step = cache_rows(table)
    in_place = out.dtype == table.dtype  # computed where it is kept; else in the table's precision, then cast
    for lo in range(0, len(table), step):
        if in_place:
            regret_matching(table[lo:lo + step], out=out[lo:lo + step])
        else:
            out[lo:lo + step] = regret_matching(table[lo:lo + step])
    return out


def block_bounds(n_classes: int, n_blocks: int) -> np.ndarray:
    """(n_blocks + 1,) first class of each block, then n_classes."""
    return np.array([n_classes * s // n_blocks for s in range(n_blocks + 1)], dtype=np.int64)


def class_deal_counts(batch: int, n_classes: int, iteration: int, first: int, stop: int) -> np.ndarray:
    """(stop - first,) deals of classes [first, stop) in a player's half of ``iteration`` (from 1):
    its batch takes places [(t - 1) batch, t batch) of the endless round of classes 0, 1, ..., C - 1, 0, ..."""
    start = (iteration - 1) * batch % n_classes
    after = (np.arange(first, stop) - start) % n_classes  # places after the round's start this half
    return batch // n_classes + (after < batch % n_classes)


def class_visits(batch: int, n_classes: int, iterations: int) -> np.ndarray:
    """(C,) deals that updated each class of a player after ``iterations`` of its half-iterations."""
    total = iterations * batch
    return total // n_classes + (np.arange(n_classes) < total % n_classes)


def apply_update(rule: Rule, t: int, regrets: np.ndarray, sums: np.ndarray, sigma: np.ndarray, got,
                 first: int) -> None:
    """Add one batch's class sums ``got`` (ClassTotals, rows global) to the rows of ``regrets`` and
    ``sums`` (rows from ``first``) as iteration ``t`` of ``rule`` says (:func:`~distcfr.engine.rules.
    update_sampled_rows`), against the strategy ``sigma`` of those rows that produced them; a
    cache-sized piece of rows at a time (the same bits as all at once)."""
    step = cache_rows(regrets)
    for lo in range(0, len(got.rows), step):
        rows = got.rows[lo:lo + step] - first
        q, reach = got.q[lo:lo + step], got.reach[lo:lo + step]
        if reach.ndim == q.ndim - 1:  # a reach per decision of the row
            reach = reach[..., None]
        else:  # one reach per stack, the same at every decision of the row
            reach = reach.reshape(len(q), *(1,) * (q.ndim - 3), -1, 1)  # (G, ..., B, 1)
        if len(rows) and rows[-1] - rows[0] == len(rows) - 1:  # consecutive rows: views, updated in place
            at = slice(int(rows[0]), int(rows[-1]) + 1)
            update_sampled_rows(rule, t, regrets[at], sums[at], sigma[at], q, reach)
        else:
            r, s = regrets[rows], sums[rows]
            update_sampled_rows(rule, t, r, s, sigma[rows], q, reach)
            regrets[rows], sums[rows] = r, s


def pack_rows(rows: np.ndarray) -> tuple:
    """Strategy rows as sent to a worker on another node: (shape, a bit per cell that is not +0.0,
    those cells' values). Regret matching gives every action of negative regret probability 0, most
    discards of most hands after a few iterations, so this is a fraction of the rows' bytes, and
    :func:`unpack_rows` gives back the very same bits."""
    kept = rows.view(np.uint32 if rows.dtype.itemsize == 4 else np.uint16) != 0
    return rows.shape, np.packbits(kept.reshape(-1)), rows[kept]


def unpack_rows(shape: tuple, bits: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The rows :func:`pack_rows` packed."""
    rows = np.zeros(shape, values.dtype)
    rows[np.unpackbits(bits, count=int(np.prod(shape))).reshape(shape).astype(bool)] = values
    return rows


@dataclasses.dataclass(frozen=True)
class StrategyRows:
    """One group's current strategy rows of one player: chunk i of each block holds rows
    [firsts[i], firsts[i + 1]) (the last up to ``stop``), as arrays or object-store references."""

    firsts: list[int]
    stop: int
    chunks: dict[str, list]

    def joined(self) -> dict[str, np.ndarray]:
        return {name: _joined(chunks) for name, chunks in self.chunks.items()}


@dataclasses.dataclass(frozen=True)
class HalfIterationProgress:
    """How far a group got in its latest half-iteration: ``player``'s update of ``iteration`` has
    done the class blocks before ``next_block`` (a half-iteration cut short goes on from there)."""

    player: int | None
    iteration: int | None
    next_block: int

    def of(self, player: int, iteration: int) -> bool:
        """Whether this is ``player``'s half of ``iteration``."""
        return (self.player, self.iteration) == (player, iteration)


class ClassBlockGroup:
    """Blocks [first, stop) of a sampled game and the table rows of their classes (what a Ray
    actor wraps). ``spec`` is the game's spec string; the kernel is built from it."""

    restartable = False  # a fresh process would not have the rows: a run stops instead (distcfr.distributed.ray_shards)

    def __init__(self, spec: str, n_blocks: int, first: int, stop: int, seed: int, schedule: DealSchedule,
                 table_dtype=TABLE_DTYPE):
        self.kernel = kernel = sampled_kernel(load_game(spec))
        self.n_blocks, self.first, self.stop, self.seed = n_blocks, first, stop, seed
        self.schedule = schedule  # deals of the button's, the big blind's half-iteration
        self.bounds = block_bounds(kernel.n_classes, n_blocks)
        self.lo, self.hi = int(self.bounds[first]), int(self.bounds[stop])
        rows = self.hi - self.lo
        self.regrets = {b.name: np.zeros((rows, *b.shape), table_dtype) for b in class_tables(kernel)}
        self.sums = {b.name: np.zeros((rows, *b.shape), table_dtype) for b in class_tables(kernel)}
        self.first_row = {b.name: self.lo for b in class_tables(kernel)}  # of each table's rows held here
        for table in key_tables(kernel):  # this group's slice of each key table
            lo, hi = (int(b) for b in block_bounds(kernel.table_rows(table), n_blocks)[[first, stop]])
            self.first_row[table.name] = lo
            self.regrets[table.name] = np.zeros((hi - lo, *table.shape), table_dtype)
            self.sums[table.name] = np.zeros((hi - lo, *table.shape), table_dtype)
        # the current strategy of its key slices
        self.key_sigma = {t.name: regret_matching_rows(self.regrets[t.name]) for t in key_tables(kernel)}
        self.shared: dict[str, np.ndarray] = {}  # the whole key tables' strategy it plays (set_key_strategy)
        self.key_sums: tuple | None = None  # (player, iteration, {table: (q, reach)}) of the latest half
        self.done = HalfIterationProgress(None, None, first)  # how far the latest half-iteration got
        self.published: list[StrategyRows | None] = [None, None]  # per player: what sigma published last
        self._plan: tuple | None = None  # (player, iteration, runs): the deals plan drew
        self.interruptible = False  # True while no table is being written (in-process runs stop there)
        self._buffers: dict[tuple, np.ndarray] = {}

    def _scratch(self, use: str, name: str, rows: int, dtype, row_shape: tuple | None = None) -> np.ndarray:
        """A buffer for ``rows`` rows of block ``name`` (or of ``row_shape``), kept for the next
        call of the same ``use``: memory a process has just been given costs a page fault per 4 KiB
        on first touch (several times the cost of a later pass over it), which a pass over reused
        memory skips."""
        row_shape = self.kernel.strategy_table(name).shape if row_shape is None else tuple(row_shape)
        key = (use, name, np.dtype(dtype), row_shape)
        if key not in self._buffers or len(self._buffers[key]) < rows:
            self._buffers[key] = np.empty((rows, *row_shape), dtype)
        return self._buffers[key][:rows]

    def rows(self) -> tuple[int, int]:
        return self.lo, self.hi

    def sigma(self, player: int) -> StrategyRows:
        """The current strategy of ``player``'s blocks on this group's rows (float32), published
        ``PUBLISH_ROWS`` rows at a time (:meth:`publish`); in this process (nothing copies it),
        one array per block, computed where the player's last one was (its half let that go):
        fresh memory costs a page fault per 4 KiB, several times the pass itself."""
        names = [b.name for b in class_tables(self.kernel) if b.player == player]
        if self.publish_copies:
            firsts = list(range(self.lo, self.hi, PUBLISH_ROWS))
            chunks = {name: [self._publish_rows("sigma", self.regrets, name, f, np.float32) for f in firsts]
                      for name in names}
        else:
            firsts = [self.lo]
            chunks = {name: [regret_matching_rows(self.regrets[name], out=self._scratch(
                "sigma", name, self.hi - self.lo, np.float32))] for name in names}
        self.published[player] = StrategyRows(firsts, self.hi, chunks)  # what serve reads
        return self.published[player]

    def _publish_rows(self, use: str, tables: dict, name: str, first: int, dtype):
        """:meth:`publish` regret matching on ``PUBLISH_ROWS`` rows of ``tables[name]`` from class ``first``
        (computed in a reused buffer where :meth:`publish` copies it away)."""
        rows = tables[name][first - self.lo:first - self.lo + PUBLISH_ROWS]
        out = self._scratch(use, name, len(rows), dtype) if self.publish_copies else None
        return self.publish(regret_matching_rows(rows, dtype, out=out))

    publish_copies = False  # whether publish copies its chunk (which may then be a reused buffer)

    def publish(self, chunk: np.ndarray):
        """Hand a chunk of strategy rows to the other groups (in-process: the array itself; a Ray
        actor puts it in the object store and hands the reference)."""
        return chunk

    def fetch(self, rows: list[StrategyRows]) -> list[StrategyRows]:
        """Other groups' strategy rows as arrays (a Ray actor reads them from the object store)."""
        return rows

    def plan(self, player: int, iteration: int) -> np.ndarray:
        """Draw this group's deals of ``player``'s half of ``iteration`` (kept for
        :meth:`half_iteration`) and return the other player's hand classes in them that lie outside
        this group's rows (sorted, unique): the rows of the other's strategy the half reads from
        elsewhere. A deal's other hand is uniform over the deck, so with W groups and b deals per
        class a group reads about 1 - exp(-b / W) of the rows, not all of them."""
        runs, block = [], self.first
        while block < self.stop:
            end = self._run_end(player, iteration, block)
            deals, counts = self._draw(player, iteration, block, end)
            runs.append((block, end, deals, counts, self.kernel.other_classes(deals, player)))
            block = end
        theirs = np.unique(np.concatenate([other[0] for *_, other in runs]))
        self._plan = (player, iteration, runs)
        return theirs[(theirs < self.lo) | (theirs >= self.hi)]

    def serve(self, player: int, *needs: np.ndarray) -> list[dict[str, np.ndarray]] | dict[str, np.ndarray]:
        """For each other group's ``needs`` (:meth:`plan`), the rows among them that this group
        owns of ``player``'s current strategy (as published last): ``{"ids": class ids, block: rows
        packed by :func:`pack_rows`}`` (one per need; for one need, that dict itself, as Ray hands out
        one return)."""
        mine = self.fetch([self.published[player]])[0]
        firsts = [*mine.firsts, mine.stop]
        tables = {name: RowTable(firsts, chunks) for name, chunks in mine.chunks.items()}
        out = []
        for ids in needs:
            ids = ids[(ids >= self.lo) & (ids < self.hi)]
            out.append({"ids": ids} | {name: pack_rows(table.take(ids)) for name, table in tables.items()})
        return out[0] if len(out) == 1 else out

    def half_iteration(self, player: int, iteration: int, rule: dict, *parts) -> tuple[StrategyRows, int]:
        """Update ``player``'s rows on this group's deals of ``iteration`` with the update rule whose
        fields are ``rule`` (``Rule.fields()``), against the current strategy: ``parts`` holds, per
        group in row order, the other player's strategy rows: all of them (StrategyRows, read in
        place) or only those this group's deals read (:meth:`serve`, from groups on other machines);
        the player's own comes from this group's regrets. Returns ``player``'s new strategy rows and
        the number of deals evaluated. Called again after an interruption with the same arguments,
        it finishes the blocks it had not done."""
        self.published[player] = None  # not read in this half: one copy of a player's strategy at a time
        theirs = self._their_rows(player, list(parts))
        rule = rule_from_fields(rule)
        if not self.done.of(player, iteration):
            self.done = HalfIterationProgress(player, iteration, self.first)
            self.key_sums = (player, iteration, {}) if key_tables(self.kernel) else None
        deals = 0
        try:
            for block, end, drawn, counts, other in self._runs(player, iteration, self.done.next_block):
                lo, hi = int(self.bounds[block]), int(self.bounds[end])
                at = slice(lo - self.lo, hi - self.lo)  # the run's rows of this group's tables
                mine = {b.name: regret_matching_rows(self.regrets[b.name][at],
                                                     out=self._scratch("mine", b.name, hi - lo, np.float32))
                        for b in class_tables(self.kernel) if b.player == player}  # the strategy playing now
                sigma = theirs | {name: RowTable([lo, hi], [table]) for name, table in mine.items()} | self.shared
                self.interruptible = True  # sums only: a stop here loses nothing
                extra = {"key_sums": self._key_sums(player)} if self.key_sums is not None else {}
                got = self.kernel.class_sums(sigma, drawn, player, counts, first=lo, other=other,
                                             scratch=self._totals, **extra) if len(drawn) else {}
                self.interruptible = False  # the tables change: not to be left half-written
                for name, sums in got.items():
                    self.update(rule, iteration, name, at, sums, mine[name])
                self.done, deals = HalfIterationProgress(player, iteration, end), deals + len(drawn)
        finally:
            self.interruptible = False
        self._plan = None
        return self.sigma(player), deals

    def set_key_strategy(self, *slices: dict) -> None:
        """The key tables' strategy the next half-iterations or evaluations play, from every owner's
        slice ({table: (first row, rows)}, as :meth:`update_keys` or :meth:`key_strategy` give them):
        the tables named are put together whole, as float32, and replace those held, the others
        stay. (An average's float16 slices are widened here once: the kernel reads float32 tables in
        place, and would widen a float16 one for every chunk of deals.)"""
        for name in dict.fromkeys(name for part in slices for name in part):
            pieces = [part[name] for part in slices if name in part]
            shape = (self.kernel.table_rows(self.kernel.strategy_table(name)), *pieces[0][1].shape[1:])
            whole = self.shared.get(name)
            if whole is None or whole.shape != shape:  # else written over: fresh memory costs page faults
                whole = np.empty(shape, np.float32)
            for lo, rows in pieces:
                whole[lo:lo + len(rows)] = rows
            self.shared[name] = whole

    def key_strategy(self) -> dict:
        """{table: (first row, rows)} the current strategy of this group's slice of every key table."""
        return {name: (self.first_row[name], sigma) for name, sigma in self.key_sigma.items()}

    def key_average(self) -> dict:
        """{table: (first row, rows)} the average strategy (float16) of this group's slice of every key table."""
        return {name: (self.first_row[name], regret_matching_rows(self.sums[name], np.float16))
                for name in self.key_sigma}

    def match_keys(self) -> dict:
        """The current strategy of this group's key slices after their rows were set (:meth:`key_strategy`)."""
        self.key_sigma = {name: regret_matching_rows(self.regrets[name]) for name in self.key_sigma}
        return self.key_strategy()

    def update_keys(self, player: int, iteration: int, rule: dict, *parts: dict) -> dict:
        """Add every group's sums of this group's slice of ``player``'s key rows in its half of
        ``iteration`` (``parts``: one slice of each group's :meth:`take_key_sums`) to those rows as
        the rule with these fields says; returns the slices' new strategy (:meth:`key_strategy`, the
        player's tables). Rows no deal reached keep their regrets, so their strategy."""
        sums, rule = added_key_sums(parts), rule_from_fields(rule)
        out = {}
        for table in key_tables(self.kernel):
            name = table.name
            if table.player != player:
                continue
            if name in sums:
                rows, q, reach = sums[name]
                # rows whose parts cancelled to zero count as not reached
                kept = q.reshape(len(q), -1).any(1) | reach.reshape(len(reach), -1).any(1)
                if not kept.all():
                    rows, q, reach = rows[kept], q[kept], reach[kept]
                first, regrets = self.first_row[name], self.regrets[name]
                got = ClassTotals(rows, _units_to_float32(q), _units_to_float32(reach))
                apply_update(rule, iteration, regrets, self.sums[name], self.key_sigma[name], got, first)
                self.key_sigma[name][rows - first] = regret_matching_rows(regrets[rows - first])
            out[name] = (self.first_row[name], self.key_sigma[name])
        return out

    def _key_sums(self, player: int) -> dict:
        """{table: (q, reach)} the int64 sums of ``player``'s key tables this half-iteration adds to
        (the kernel adds each run's: integer sums, whose order changes no bit), zero at its start."""
        totals = self.key_sums[2]
        for table in key_tables(self.kernel):
            if table.player == player and table.name not in totals:
                rows = self.kernel.table_rows(table)
                totals[table.name] = (np.zeros((rows, *table.shape), np.int64),
                                      np.zeros((rows, *table.shape[:-1]), np.int64))
        return totals

    def take_key_sums(self, player: int, iteration: int, firsts: list[int] | None = None) -> list[dict] | dict:
        """This group's int64 sums of ``player``'s key tables in its half of ``iteration`` (the rows
        any deal reached), cut into the slices of the groups whose first blocks are ``firsts`` (then
        the number of blocks; default: one group), {table: (rows, q, reach)} each: the owner of
        each slice adds everyone's (:meth:`update_keys`). One slice per owner (for one owner, that
        slice itself, as Ray hands out one return)."""
        firsts = [0, self.n_blocks] if firsts is None else firsts
        out = [{} for _ in firsts[1:]]
        if self.key_sums is None or self.key_sums[:2] != (player, iteration):
            return out if len(out) > 1 else out[0]
        for name, (q, reach) in self.key_sums[2].items():
            rows = np.flatnonzero(reach.reshape(len(reach), -1).any(1) | q.reshape(len(q), -1).any(1))
            cuts = np.searchsorted(rows, block_bounds(len(q), self.n_blocks)[firsts])
            for part, lo, hi in zip(out, cuts[:-1], cuts[1:]):
                if hi > lo:
                    at = rows[lo:hi]
                    part[name] = (at, q[at], reach[at])
        self.key_sums = None
        return out if len(out) > 1 else out[0]

    def _totals(self, key: str, shape: tuple) -> np.ndarray:
        """A float32 buffer of ``shape`` for a batch's class totals (read by the update at once)."""
        return self._scratch("totals", key, shape[0], np.float32, shape[1:])

    def _their_rows(self, player: int, parts: list) -> dict:
        """{block: table} of the other player's strategy from ``parts`` (see :meth:`half_iteration`)."""
        whole = self.fetch([p for p in parts if isinstance(p, StrategyRows)])
        served = [p for p in parts if not isinstance(p, StrategyRows)]
        names = [b.name for b in class_tables(self.kernel) if b.player != player]
        if not served:
            firsts = [f for p in whole for f in p.firsts] + [whole[-1].stop]
            return {name: RowTable(firsts, [c for p in whole for c in p.chunks[name]]) for name in names}
        ids = np.concatenate([p["ids"] for p in served])
        return {name: HeldRows(self.kernel.n_classes, [(f, c) for p in whole for f, c in zip(p.firsts, p.chunks[name])],
                               ids, [unpack_rows(*p[name]) for p in served]) for name in names}

    def _runs(self, player: int, iteration: int, block: int):
        """(first block, end block, deals, per-class counts, the other's classes or None) of each run
        of blocks from ``block`` on: :meth:`plan`'s where it drew them, else drawn now."""
        if self._plan is not None and self._plan[:2] == (player, iteration):
            yield from (run for run in self._plan[2] if run[0] >= block)
            return
        while block < self.stop:
            end = self._run_end(player, iteration, block)
            yield block, end, *self._draw(player, iteration, block, end), None
            block = end

    def _run_end(self, player: int, iteration: int, block: int) -> int:
        """The end of the run of blocks from ``block`` evaluated in one call: as many as hold at
        most ``RUN_DEALS`` deals together, one at least. Each block draws its own deals from its
        own stream and a class's sums do not depend on the other classes in the call, so runs
        change the cost of the fixed per-call work of small games, never the bits."""
        lo = int(self.bounds[block])
        counts = class_deal_counts(self.schedule.of(player), self.kernel.n_classes, iteration, lo,
                                   int(self.bounds[self.stop]))
        total = np.cumsum(counts)[self.bounds[block + 1:self.stop + 1] - lo - 1]  # (blocks left,) deals to each end
        return block + max(1, int(np.searchsorted(total, RUN_DEALS, side="right")))

    def _draw(self, player: int, iteration: int, block: int, end: int) -> tuple[np.ndarray, np.ndarray]:
        """(deals, per-class counts) of the classes of blocks [block, end), each block's deals from
        its own stream."""
        lo, hi = int(self.bounds[block]), int(self.bounds[end])
        batch = self.schedule.of(player)
        counts = class_deal_counts(batch, self.kernel.n_classes, iteration, lo, hi)
        keys = [(SOLVE_DOMAIN, 2 * iteration + player, b) for b in range(block, end)]
        cuts = np.split(counts, self.bounds[block + 1:end] - lo)
        before = class_visits(batch, self.kernel.n_classes, iteration - 1)[lo:hi] if self.kernel.cycle else None
        return self.kernel.sample_blocks_deals(self.seed, keys, player, lo, cuts, self.kernel.stubs, before), counts

    def update(self, rule: Rule, iteration: int, name: str, at: slice, got, sigma: np.ndarray) -> None:
        """Add a block's sums ``got`` to block ``name``'s rows ``at`` (those of the block), played
        against ``sigma`` (the same rows)."""
        apply_update(rule, iteration, self.regrets[name][at], self.sums[name][at], sigma, got, self.lo + at.start)

    def average(self, dtype=np.float16) -> dict[str, np.ndarray]:
        """{table: (rows, ...)} average strategy of this group's rows (regret matching on the sums),
        as float16 by default: what strategy files store, at half the memory of float32."""
        return {name: regret_matching_rows(s, dtype) for name, s in self.sums.items()}

    def publish_average(self) -> StrategyRows:
        """The average strategy of this group's rows, every block, as float16 (the values of
        :meth:`average`), published ``PUBLISH_ROWS`` rows at a time for the others to read."""
        return self._publish_all("average", self.sums)

    def publish_latest(self) -> StrategyRows:
        """The latest iterate of this group's rows (regret matching on the regrets: the strategy the
        next iteration would play), every block, as float16, published like :meth:`publish_average`."""
        return self._publish_all("latest", self.regrets)

    def _publish_all(self, use: str, tables: dict) -> StrategyRows:
        firsts = list(range(self.lo, self.hi, PUBLISH_ROWS))
        chunks = {b.name: [self._publish_rows(use, tables, b.name, f, np.float16) for f in firsts]
                  for b in class_tables(self.kernel)}
        return StrategyRows(firsts, self.hi, chunks)

    def bracket_sums(self, settings: BracketSettings, player: int, chunks: list[tuple[int, int]],
                     *published: StrategyRows) -> list[ChunkSums]:
        """The bracket's sums of ``player`` for these class ranges (:func:`~distcfr.engine.sampled_bracket.
        bracket_chunk` as ``settings`` say, the focus round's pilot where it runs), against the
        average strategy of every group, with
        the latest iterate scored as a response too (``published``: every group's average, then every
        group's latest iterate, each in row order; a kernel with key tables scores no latest iterate,
        and only the averages come)."""
        if key_tables(self.kernel):
            sigma, latest = self._read_published(published), None
        else:
            sigma, latest = (self._read_published(part) for part in (published[:len(published) // 2],
                                                                    published[len(published) // 2:]))
        return [bracket_chunk(self.kernel, sigma, settings.seed, settings.per_class, player, first, stop,
                              rounds=settings.rounds, latest=latest, pilot=settings.focus > 0)
                for first, stop in _heeding_stops(chunks)]

    def focus_sums(self, seed: int, deals: int, player: int, chunks: list[tuple[int, int]],
                   *averages: StrategyRows) -> list[np.ndarray]:
        """The focus round's sums of ``player`` for these classes (:func:`~distcfr.engine.sampled_bracket.
        focus_chunk`) against the average strategy of every group (``averages``, in row order)."""
        sigma = self._read_published(averages)
        return [focus_chunk(self.kernel, sigma, seed, deals, player, first, stop)
                for first, stop in _heeding_stops(chunks)]

    def value_sums(self, seed: int, per_class: int, chunks: list[tuple[int, int]],
                   *averages: StrategyRows) -> list[np.ndarray]:
        """The value readings' sums for these class ranges (:func:`~distcfr.engine.sampled_bracket.
        value_chunk`) against the average strategy of every group (``averages``, in row order)."""
        sigma = self._read_published(averages)
        return [value_chunk(self.kernel, sigma, seed, per_class, first, stop)
                for first, stop in _heeding_stops(chunks)]

    def _read_published(self, published: tuple[StrategyRows, ...]) -> dict[str, RowTable]:
        """{block: RowTable} of every group's published strategy rows (average or latest), read where they lie."""
        parts = self.fetch(list(published))
        firsts = [f for p in parts for f in p.firsts] + [parts[-1].stop]
        return {b.name: RowTable(firsts, [c for p in parts for c in p.chunks[b.name]])
                for b in class_tables(self.kernel)} | self.shared

    def release(self) -> None:
        """Let this group's references to its published strategy and its drawn deals go."""
        self.published, self._plan = [None, None], None
        self._buffers = {key: buffer for key, buffer in self._buffers.items() if key[0] != "sigma"}

    def tables(self) -> tuple[dict, dict]:
        """(regrets, sums) of this group's rows, per table (its slice of each key table)."""
        return self.regrets, self.sums

    def table_rows(self, kind: str, name: str, lo: int, hi: int) -> np.ndarray:
        """Rows [lo, hi) (within this group's: class indices, or its slice of a key table) of table
        ``name`` of ``kind`` ("regrets" or "sums")."""
        first = self.first_row[name]
        return self._table(kind, name)[lo - first:hi - first]

    def set_table_rows(self, kind: str, name: str, lo: int, rows: np.ndarray) -> None:
        """Set rows from ``lo`` on (see :meth:`table_rows`); the next half-iteration starts afresh (the
        key slices' strategy follows their new regrets at :meth:`match_keys`)."""
        first = self.first_row[name]
        self._table(kind, name)[lo - first:lo - first + len(rows)] = rows
        self.done, self.published = HalfIterationProgress(None, None, self.first), [None, None]

    def _table(self, kind: str, name: str) -> np.ndarray:
        assert kind in ("regrets", "sums"), kind
        return getattr(self, kind)[name]


def _heeding_stops(chunks: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The chunks of an evaluation, given up (WorkAbandoned) before the next one once a stop is requested."""
    for chunk in chunks:
        abandon_if_stopped()
        yield chunk


def added_key_sums(parts) -> dict:
    """Groups' key sums ({table: (rows, q, reach)}) as one: the rows any of them has, each row's
    sums added (integers: the same bits in any order or grouping)."""
    out = {}
    for name in dict.fromkeys(name for part in parts for name in part):
        pieces = [part[name] for part in parts if name in part]
        if len(pieces) == 1:
            out[name] = pieces[0]
            continue
        union = np.unique(np.concatenate([rows for rows, _, _ in pieces]))
        q = np.zeros((len(union), *pieces[0][1].shape[1:]), np.int64)
        reach = np.zeros((len(union), *pieces[0][2].shape[1:]), np.int64)
        for rows, part_q, part_reach in pieces:
            at = np.searchsorted(union, rows)
            if at[-1] - at[0] == len(at) - 1:  # consecutive rows (the usual case): added in place
                at = slice(int(at[0]), int(at[-1]) + 1)
            q[at] += part_q
            reach[at] += part_reach
        out[name] = (union, q, reach)
    return out


def _units_to_float32(sums: np.ndarray) -> np.ndarray:
    """int64 key sums in KEY_SUM_UNIT as float32 BB: rounded once (the unit is a power of two, so
    scaling after the rounding is exact)."""
    out = sums.astype(np.float32)
    out *= np.float32(KEY_SUM_UNIT)
    return out


class ClassBlockSetBase:
    """The coordinator's side of a sampled block set: the current strategy's parts per player,
    the half-iteration that may be cut short by a signal and finished later (``settle``), and the
    key tables' traffic (rows every class shares: nl27's post-draw keys, each group owning a slice
    of them): after a half-iteration the groups' sums go to the slices' owners, which update their
    rows, and every group gathers the new strategy of the player's key tables."""

    n_blocks: int
    starts: list[int]  # first class row of each group, then the number of classes
    tables_dtype = np.dtype(TABLE_DTYPE)  # of the regrets and sums
    key_tables: list = []
    keys_current = False  # whether every group plays the key tables' current strategy

    def _start_keys(self, spec: str, firsts: list[int]) -> None:
        """The key tables of the game's kernel; ``firsts`` the first block of each group, then the
        number of blocks: group g owns the rows of every key table from ``key_starts[table][g]``."""
        kernel = sampled_kernel(load_game(spec))
        self.key_tables, self.key_firsts = key_tables(kernel), list(firsts)
        self.key_starts = {t.name: [int(b) for b in block_bounds(kernel.table_rows(t), firsts[-1])[firsts]]
                           for t in self.key_tables}
        self.keys_current = False

    def _groups(self) -> range:
        return range(len(self.starts) - 1)

    def _spread_keys(self, slices: list) -> None:
        """Give every group the key tables' strategy from every owner's slices (calls' results of
        :meth:`ClassBlockGroup.key_strategy` and the like)."""
        for g in self._groups():
            self._key_call(self._call(g, "set_key_strategy", *slices))

    def _spread_keys_of(self, method: str) -> None:
        """:meth:`_spread_keys` of every group's slices as ``method`` (a ClassBlockGroup method) gives them."""
        self._spread_keys([self._call(g, method) for g in self._groups()])

    def _key_call(self, call) -> None:
        """A call on the key tables whose end the next half-iteration's wait checks (in-process: done)."""

    def _current_keys_on_groups(self) -> None:
        """Before a half-iteration: every group plays the key tables' current strategy (after an
        evaluation played the average, or rows were set)."""
        if self.key_tables and not self.keys_current:
            self._spread_keys_of("key_strategy")
            self.keys_current = True

    def _average_keys_on_groups(self) -> None:
        """Before an evaluation: every group plays the key tables' average strategy."""
        if self.key_tables:
            self._spread_keys_of("key_average")
            self.keys_current = False

    def _update_keys(self, player: int, iteration: int, rule: dict) -> None:
        """After ``player``'s half of ``iteration``: each group's key sums, cut into the owners'
        slices (:meth:`_taken_key_sums`), go to the owners, which add them and update their rows as
        the rule with these fields says; every group then gathers the player's new key strategy."""
        taken = self._taken_key_sums(player, iteration)
        updated = [self._call(g, "update_keys", player, iteration, rule, *[slices[g] for slices in taken])
                   for g in self._groups()]
        self._spread_keys(updated)

    def _taken_key_sums(self, player: int, iteration: int) -> list[list]:
        """Per group, its key sums of ``player``'s half of ``iteration`` in the owners' slices."""
        n = len(self._groups())
        taken = [self._call_parts(g, n, "take_key_sums", player, iteration, self.key_firsts) for g in self._groups()]
        return taken if n > 1 else [taken]  # one group: its one slice

    def half_iteration(self, player: int, iteration: int, rule: dict) -> None:
        """Update ``player``'s rows with the deals of ``iteration`` as the rule with these fields says."""
        raise NotImplementedError

    def settle(self) -> None:
        """Finish a half-iteration a signal cut short (nothing if none)."""
        raise NotImplementedError

    def tables(self) -> tuple[dict, dict]:
        """(regrets, sums): full (rows, ...) tables per table (small games: tests and benches)."""
        parts = self._gather("tables")
        return tuple({name: _joined([p[i][name] for p in parts]) for name in parts[0][i]} for i in (0, 1))

    def bracket_sums(self, settings: BracketSettings, chunks: list[tuple[int, int]]) -> list[BracketSums]:
        """Each player's sums (BracketSums) of the exploitability bracket of the average strategy as ``settings``
        say, the latest iterate scored as a response too, after each player's focus round
        (distcfr.engine.sampled_bracket; distcfr.evaluate.sampled ``bracket_from_sums`` makes the
        bracket), its chunks spread over the groups, each reading the average where it lies: the
        same bits as the bracket of the gathered average, whatever the number of groups."""
        averages = self._gather_averages()
        published = averages + ([] if self.key_tables else self._gather("publish_latest"))  # see bracket_chunk
        self._average_keys_on_groups()

        def rechosen(player):
            return lambda parts, deals: self._on_groups(parts, "focus_sums", settings.seed, deals, player,
                                                        published=averages)

        return [focus(self._on_groups(chunks, "bracket_sums", settings, player, published=published),
                      self.starts[-1], settings.per_class, REFINE, settings.rounds, settings.focus, rechosen(player))
                for player in (0, 1)]

    def value_sums(self, seed: int, per_class: int, chunks: list[tuple[int, int]]) -> np.ndarray:
        """The (2, B) sums of a value reading of the average strategy (the button's value per stack
        on fixed deals: :func:`~distcfr.engine.sampled_bracket.value_chunk`), its chunks spread over
        the groups like a bracket's: the same bits on any number of groups."""
        averages = self._gather_averages()
        self._average_keys_on_groups()
        return self._on_groups(chunks, "value_sums", seed, per_class, published=averages)

    def _gather_averages(self) -> list:
        self.settle()
        return self._gather("publish_average")

    def _on_groups(self, chunks: list[tuple[int, int]], method: str, *args, published: list) -> np.ndarray:
        """The chunk total of ``method(*args, part, *published)`` on every group (``published``: the
        groups' published strategy rows), each given its share of ``chunks`` in order."""
        n = len(self.starts) - 1
        split = [chunks[len(chunks) * g // n:len(chunks) * (g + 1) // n] for g in range(n)]
        calls = [self._call(g, method, *args, part, *published) for g, part in enumerate(split) if part]
        return chunk_total(total for call in calls for total in self._result(call))

    def abandon(self) -> None:
        """Make the groups give up the evaluations they run or have queued (a stop request): they are free
        again within a chunk's time (in this process, the stop request itself does it)."""

    def release_strategy(self) -> None:
        """Let the current strategy's rows go (before a final evaluation that needs their memory);
        the next half-iteration publishes them again."""
        self.parts = [None, None]
        self._gather("release")

    def read_rows(self, requests: list[tuple[str, int, int]]) -> Iterator[np.ndarray]:
        """For each request (table "regrets.<block>" or "sums.<block>", lo, hi), in order, those
        rows of the table; a few requests are in flight at once, never a whole table."""
        self.settle()
        pending: deque = deque()
        for table, lo, hi in requests:
            kind, name = table.split(".", 1)
            pending.append([self._call(g, "table_rows", kind, name, a, b) for g, a, b in self._owners(name, lo, hi)])
            if len(pending) > ROWS_IN_FLIGHT:
                yield _joined([self._result(call) for call in pending.popleft()])
        while pending:
            yield _joined([self._result(call) for call in pending.popleft()])

    def write_rows(self, chunks: Iterable[tuple[str, int, np.ndarray]]) -> None:
        """Set the tables from (table, first row, rows) chunks (see :meth:`read_rows`); the
        current strategy is then regret matching on the new regrets."""
        self.settle()
        pending: deque = deque()
        for table, lo, rows in chunks:
            kind, name = table.split(".", 1)
            pending.extend(self._call(g, "set_table_rows", kind, name, a, rows[a - lo:b - lo])
                           for g, a, b in self._owners(name, lo, lo + len(rows)))
            while len(pending) > ROWS_IN_FLIGHT:
                self._result(pending.popleft())
        for call in pending:
            self._result(call)
        if self.key_tables:
            self._spread_keys_of("match_keys")
            self.keys_current = True
        self._restart_strategy()

    def load(self, regrets: dict, sums: dict) -> None:
        """Set the tables from full (C, ...) tables per block."""
        self.write_rows((f"{kind}.{name}", 0, table) for kind, tables in (("regrets", regrets), ("sums", sums))
                        for name, table in tables.items())

    def _owners(self, name: str, lo: int, hi: int) -> Iterator[tuple[int, int, int]]:
        """(group, lo, hi): the part of rows [lo, hi) of table ``name`` each group owns."""
        starts = self.key_starts.get(name, self.starts) if self.key_tables else self.starts
        for group, (first, stop) in enumerate(zip(starts[:-1], starts[1:])):
            if first < hi and lo < stop:
                yield group, max(first, lo), min(stop, hi)

    def _call(self, group: int, method: str, *args):
        """Start ``method(*args)`` on a group; :meth:`_result` waits for it."""
        raise NotImplementedError

    def _call_parts(self, group: int, parts: int, method: str, *args):
        """:meth:`_call` of a method returning ``parts`` values, each passed on alone (in-process: the tuple)."""
        return self._call(group, method, *args)

    def _result(self, call):
        raise NotImplementedError

    def _restart_strategy(self) -> None:
        """Publish every group's strategy anew (after its tables were set)."""
        raise NotImplementedError

    def average(self) -> dict[str, np.ndarray]:
        """{block: (C, ...) float16} the average strategy."""
        parts = self._gather("average")
        return {name: _joined([p[name] for p in parts]) for name in parts[0]}

    def current(self) -> dict[str, np.ndarray]:
        """{block: (C, ...) float32} the current strategy."""
        raise NotImplementedError

    def _gather(self, method: str) -> list:
        raise NotImplementedError


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class LocalClassBlocks(ClassBlockSetBase):
    """Every block in this process, as one group."""

    abandon_waits = False

    def __init__(self, spec: str, n_blocks: int, seed: int, schedule: DealSchedule, table_dtype=TABLE_DTYPE,
                 group_class=ClassBlockGroup):
        self.n_blocks = n_blocks
        self.group = group_class(spec, n_blocks, 0, n_blocks, seed, schedule, table_dtype)
        self.tables_dtype = np.dtype(table_dtype)
        self.starts = list(self.group.rows())
        self.parts = [self.group.sigma(0), self.group.sigma(1)]
        self.pending: tuple | None = None
        self._start_keys(spec, [0, n_blocks])

    @property
    def interruptible(self) -> bool:
        return self.group.interruptible

    def half_iteration(self, player: int, iteration: int, rule: dict) -> None:
        if self.parts[1 - player] is None:  # let go by release_strategy
            self._restart_strategy()
        self._current_keys_on_groups()
        self.pending = (player, iteration, rule)
        self.settle()

    def settle(self) -> None:
        if self.pending is not None:
            player, iteration, rule = self.pending
            self.parts[player] = None  # not read in its own half: one copy of the strategy at a time
            self.parts[player] = self.group.half_iteration(*self.pending, self.parts[1 - player])[0]
            if self.key_tables:
                self._update_keys(player, iteration, rule)
            self.pending = None

    def _call(self, group: int, method: str, *args):
        return getattr(self.group, method)(*args)

    def _result(self, call):
        return call

    def _restart_strategy(self) -> None:
        self.parts = [self.group.sigma(0), self.group.sigma(1)]

    def current(self) -> dict[str, np.ndarray]:
        joined = self.parts[0].joined() | self.parts[1].joined() | self.group.key_sigma
        return {name: rows.copy() for name, rows in joined.items()}  # the next strategy is computed in that memory

    def tables(self) -> tuple[dict, dict]:
        self.settle()
        return tuple({name: t.copy() for name, t in tables.items()} for tables in self.group.tables())

    def _gather(self, method: str) -> list:
        self.settle()
        return [getattr(self.group, method)()]

    def describe(self) -> dict:
        return {"workers": 0, "nodes": 1, "shards": self.n_blocks}  # the run's --shards

    def close(self) -> None:
        pass

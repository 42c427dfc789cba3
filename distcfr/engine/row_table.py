"""Tables whose rows are split over several arrays: a strategy of a sampled solve, one part per
worker, each read in place from where it lies (Ray's object store), or only the rows a worker reads."""

from __future__ import annotations

import numpy as np


class _Gathers:
    """Indexing by an array of row ids (optionally followed by more indices) through ``take``."""

    shape: tuple

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key):
        rows, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
        out = self.take(np.asarray(rows))
        return out[(slice(None), *rest)] if rest else out

    def take(self, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class RowTable(_Gathers):
    """Rows [starts[i], starts[i + 1]) of a (n, ...) table live in ``parts[i]`` (rows before
    starts[0] are not held). Indexing with an array of row ids (optionally followed by more
    indices) gathers like an ndarray would; assigning to an array of row ids sets those rows."""

    def __init__(self, starts, parts: list[np.ndarray]):
        self.starts = np.asarray(starts, dtype=np.int64)  # (len(parts) + 1,)
        self.parts = parts
        if len(self.starts) != len(parts) + 1 or any(len(p) != n for p, n in zip(parts, np.diff(self.starts))):
            raise ValueError("each part must hold the rows between its start and the next")
        self.shape = (int(self.starts[-1]), *parts[0].shape[1:])
        self.dtype = parts[0].dtype

    def __setitem__(self, rows, values) -> None:
        """Set whole rows (an array of row ids) in the parts that hold them."""
        rows, values = np.asarray(rows), np.asarray(values)
        part = np.searchsorted(self.starts, rows, side="right") - 1
        for i in np.unique(part):
            at = part == i
            self.parts[i][rows[at] - self.starts[i]] = values[at]

    def take(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), ...) copy of the given rows."""
        if len(self.parts) == 1:
            return self.parts[0][rows - self.starts[0]]
        if _ascending(rows):
            return self._take_sorted(rows)
        part = np.searchsorted(self.starts, rows, side="right") - 1
        lo, hi = (part.min(), part.max()) if len(part) else (0, 0)
        if lo == hi:  # all in one part (rows of one worker's own classes)
            return self.parts[lo][rows - self.starts[lo]]
        out = np.empty((len(rows), *self.shape[1:]), dtype=self.dtype)
        for i in range(lo, hi + 1):
            at = part == i
            out[at] = self.parts[i][rows[at] - self.starts[i]]
        return out

    def _take_sorted(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`take` of ascending rows (the classes a batch faces), by :func:`_copy_runs`."""
        out = np.empty((len(rows), *self.shape[1:]), dtype=self.dtype)
        if not _copy_runs(out, rows, self.starts[:-1], self.parts).all():
            raise IndexError("a row outside the parts")
        return out

    def full(self) -> np.ndarray:
        """The whole table as one array (a copy unless there is one part)."""
        return self.parts[0] if len(self.parts) == 1 else np.concatenate(self.parts)


class HeldRows(_Gathers):
    """The rows a worker holds of an (n, ...) table: ``dense`` (first row, rows from it) pieces, in
    row order, and the rows ``ids`` (sorted, unique, outside those pieces) in ``parts``, one after
    another. Indexing with an array of held row ids (optionally followed by more indices) gathers
    like an ndarray would."""

    def __init__(self, n: int, dense: list[tuple[int, np.ndarray]], ids: np.ndarray, parts: list[np.ndarray]):
        self.firsts = np.array([f for f, _ in dense], dtype=np.int64)
        self.ends = self.firsts + [len(rows) for _, rows in dense]
        self.dense = [rows for _, rows in dense]
        self.ids = np.asarray(ids)
        self.sparse = RowTable(np.concatenate([[0], np.cumsum([len(p) for p in parts])]), parts)
        if len(self.ids) != len(self.sparse):
            raise ValueError("one row of parts per id")
        self.shape = (n, *parts[0].shape[1:])
        self.dtype = parts[0].dtype

    def take(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), ...) copy of the given rows; KeyError for a row not held."""
        out = np.empty((len(rows), *self.shape[1:]), dtype=self.dtype)
        if _ascending(rows):
            inside = _copy_runs(out, rows, self.firsts, self.dense)
        else:
            piece = np.searchsorted(self.firsts, rows, side="right") - 1
            inside = np.zeros(len(rows), bool)
            if len(self.dense):
                inside = (piece >= 0) & (rows < self.ends[np.maximum(piece, 0)])
            for i in np.unique(piece[inside]):
                at = inside & (piece == i)
                out[at] = self.dense[i][rows[at] - self.firsts[i]]
        elsewhere = rows[~inside]
        at = np.searchsorted(self.ids, elsewhere)
        if (at >= len(self.ids)).any() or (self.ids[np.minimum(at, len(self.ids) - 1)] != elsewhere).any():
            raise KeyError("a row this worker was not sent")
        out[~inside] = self.sparse.take(at)
        return out


def _ascending(rows: np.ndarray) -> bool:
    """Whether ``rows`` (two or more) never go down: gathered run by run (:func:`_copy_runs`)."""
    return len(rows) > 1 and bool((rows[1:] >= rows[:-1]).all())


def _copy_runs(out: np.ndarray, rows: np.ndarray, firsts, arrays: list[np.ndarray]) -> np.ndarray:
    """Copy the ascending ``rows`` that ``arrays`` hold (array i: rows from firsts[i] on) to their
    places in ``out`` and return the (len(rows),) mask of those copied. Each array's rows are one run
    of ``rows``, copied once, straight into place: a boolean mask per array scattered a temporary
    copy (twice the copying; a fifth of a Ray worker's time on 5 cards from 52 at 20 stacks)."""
    held = np.zeros(len(rows), bool)
    for first, array in zip(firsts, arrays):
        a, b = np.searchsorted(rows, [first, first + len(array)])
        if a < b:  # mode "clip": the run lies inside the array; "raise" would buffer the copy
            np.take(array, rows[a:b] - first, axis=0, out=out[a:b], mode="clip")
            held[a:b] = True
    return held


def rows_of(table, rows: np.ndarray) -> np.ndarray:
    """``table[rows]`` of an array or a :class:`RowTable`: a view where ``rows`` are consecutive and
    lie in one array (a batch's own classes: nothing copied), a copy otherwise."""
    rows = np.asarray(rows)
    if len(rows) and (np.diff(rows) == 1).all():
        first, stop = int(rows[0]), int(rows[-1]) + 1
        if isinstance(table, np.ndarray):
            return table[first:stop]
        if isinstance(table, RowTable):
            part = int(np.searchsorted(table.starts, first, side="right")) - 1
            if 0 <= part < len(table.parts) and stop <= table.starts[part + 1]:
                return table.parts[part][first - table.starts[part]:stop - table.starts[part]]
    return table[rows]

"""A table whose rows are split over several arrays: the current strategy of a sampled solve,
one part per worker, each read in place from where it lies (Ray's object store)."""

from __future__ import annotations

import numpy as np


class RowTable:
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

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key):
        rows, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
        out = self.take(np.asarray(rows))
        return out[(slice(None), *rest)] if rest else out

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
        part = np.searchsorted(self.starts, rows, side="right") - 1
        lo, hi = (part.min(), part.max()) if len(part) else (0, 0)
        if lo == hi:  # all in one part (rows of one worker's own classes)
            return self.parts[lo][rows - self.starts[lo]]
        out = np.empty((len(rows), *self.shape[1:]), dtype=self.dtype)
        for i in range(lo, hi + 1):
            at = part == i
            out[at] = self.parts[i][rows[at] - self.starts[i]]
        return out

    def full(self) -> np.ndarray:
        """The whole table as one array (a copy unless there is one part)."""
        return self.parts[0] if len(self.parts) == 1 else np.concatenate(self.parts)

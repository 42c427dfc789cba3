"""Progress of a long solve: a line redrawn in place on a terminal, or a plain log line every
``log_every`` seconds when the output is not a terminal (a `ray job submit` log, a file)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int | None, enabled: bool = True, stream=None, log_every: float = 10.0):
        self._stream = stream
        self.enabled = enabled
        self.redraw = enabled and self.stream.isatty()
        self.interval = 0.1 if self.redraw else log_every
        self.total = total
        self.start = time.perf_counter()
        self.last_draw = self.start
        self.exploitability: float | None = None

    @property
    def stream(self):
        return self._stream or sys.stderr  # looked up each time: a stop may re-point sys.stderr

    def update(self, iteration: int, done_now: int, exploitability: float | None = None, extra: str = "") -> None:
        """Report (at most every ``interval`` seconds; on a terminal also when a new
        exploitability arrives)."""
        if exploitability is not None:
            self.exploitability = exploitability
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last_draw < self.interval and not (self.redraw and exploitability is not None):
            return
        self.last_draw = now
        elapsed = now - self.start
        rate = done_now / elapsed if elapsed > 0 else 0.0
        total = f"/{self.total}" if self.total else ""
        expl = f"  exploitability {self.exploitability:.3e}" if self.exploitability is not None else ""
        line = f"  iteration {iteration}{total}{expl}  {rate:,.1f} it/s  {elapsed:,.1f}s{extra}"
        self.stream.write(f"\r{line}\033[K" if self.redraw else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.redraw:
            self.stream.write("\n")
            self.stream.flush()

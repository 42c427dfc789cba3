"""A one-line progress display for long solves; silent when stderr is not a terminal."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int | None, enabled: bool | None = None, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.start = time.perf_counter()
        self.last_draw = 0.0
        self.exploitability: float | None = None

    def update(self, iteration: int, done_now: int, exploitability: float | None = None, extra: str = "") -> None:
        """Redraw (at most 10 times a second, and always when a new exploitability arrives)."""
        if exploitability is not None:
            self.exploitability = exploitability
        if not self.enabled:
            return
        now = time.perf_counter()
        if exploitability is None and now - self.last_draw < 0.1:
            return
        self.last_draw = now
        elapsed = now - self.start
        rate = done_now / elapsed if elapsed > 0 else 0.0
        total = f"/{self.total}" if self.total else ""
        expl = f"  exploitability {self.exploitability:.3e}" if self.exploitability is not None else ""
        self.stream.write(f"\r  iteration {iteration}{total}{expl}  {rate:,.0f} it/s  {elapsed:,.1f}s{extra}\033[K")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

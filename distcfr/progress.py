"""Progress of a long solve: a line redrawn in place on a terminal (never wider than it), or a plain
log line every ``log_every`` seconds when the output is not a terminal (a `ray job submit` log, a
file). The line says where the run stands against its stopping rule: the share done, the time
spent and, where the rule allows an estimate, the time left."""

from __future__ import annotations

import shutil
import sys
import time

from distcfr.games.table import fit_line


def clock(seconds: float) -> str:
    """Seconds as 42s, 3:07 or 1:02:09."""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}" if minutes else f"{secs}s"


class Progress:
    """``total``: the iterations the run stops at (total, counting those before a resume);
    ``seconds``: the time it stops after; either or neither (a target exploitability)."""

    def __init__(self, total: int | None, enabled: bool = True, stream=None, log_every: float = 10.0,
                 seconds: float | None = None):
        self._stream = stream
        self.enabled = enabled
        self.redraw = enabled and self.stream.isatty()
        self.interval = 0.1 if self.redraw else log_every
        self.total, self.seconds = total, seconds
        self.start = time.perf_counter()
        self.last_draw = self.start
        self.exploitability: str | None = None

    @property
    def stream(self):
        return self._stream or sys.stderr  # looked up each time: a stop may re-point sys.stderr

    def update(self, iteration: int, done_now: int, exploitability: str | None = None, extra: str = "") -> None:
        """Report (at most every ``interval`` seconds; on a terminal also when a new
        exploitability arrives, as its text in the game's units). ``done_now``: iterations run
        since this run started."""
        if exploitability is not None:
            self.exploitability = exploitability
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last_draw < self.interval and not (self.redraw and exploitability is not None):
            return
        self.last_draw = now
        line = self.line(iteration, done_now, now - self.start) + extra
        if self.redraw:
            width = shutil.get_terminal_size((80, 24)).columns - 1  # the last column would wrap on some terminals
            self.stream.write("\r" + line[:width] + "\033[K")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def line(self, iteration: int, done_now: int, elapsed: float) -> str:
        """``  iteration 40/100 (40%)  0:12, ~0:18 left  exploitability 1.20e-03 chips per game``: what a
        narrow terminal cuts off is the end."""
        shares, lefts = [], []
        if self.total:
            left = self.total - iteration
            shares.append(1 - left / max(self.total - (iteration - done_now), 1))
            if done_now:
                lefts.append(left * elapsed / done_now)
        if self.seconds:
            shares.append(elapsed / self.seconds)
            lefts.append(self.seconds - elapsed)
        total = f"/{self.total}" if self.total else ""
        share = f" ({min(max(shares), 1):.0%})" if shares else ""
        expl = f"  exploitability {self.exploitability}" if self.exploitability is not None else ""
        left = f", ~{clock(min(lefts))} left" if lefts else ""
        return f"  iteration {iteration}{total}{share}  {clock(elapsed)}{left}{expl}"

    def note(self, text: str) -> None:
        """A line of its own amid the progress (on a terminal, over the line being redrawn)."""
        if self.enabled:
            self.stream.write("\r\033[K" + fit_line(text) + "\n" if self.redraw else text + "\n")
            self.stream.flush()

    def close(self) -> None:
        """End the line being redrawn (once: a second call does nothing)."""
        if self.redraw:
            self.stream.write("\n")
            self.stream.flush()
            self.redraw = False

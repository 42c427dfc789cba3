"""How many sampled deals each player's half-iteration draws: the deal schedule of a sampled run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DealSchedule:
    """Deals of the button's and of the big blind's half-iteration (each player updates on its own
    half; a run's batch times the player's deal share)."""

    button: int
    big_blind: int

    @classmethod
    def from_batch(cls, batch: int, shares: tuple[int, int]) -> DealSchedule:
        """Each player's share (button, big blind) times ``batch`` deals."""
        return cls(batch * shares[0], batch * shares[1])

    def of(self, player: int) -> int:
        """The deals of ``player``'s half-iteration (0: the button, 1: the big blind)."""
        return self.big_blind if player else self.button

    @property
    def per_iteration(self) -> int:
        """Deals of a whole iteration, both halves."""
        return self.button + self.big_blind

    @property
    def largest(self) -> int:
        """The deals of the larger half (what a worker's buffers are sized for)."""
        return max(self.button, self.big_blind)

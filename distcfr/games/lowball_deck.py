"""What the deuce-to-seven games share: a deck of the lowest ``ranks`` ranks in ``suits`` suits,
hands of ``hand`` cards, labels for hands, and a list of stacks solved as variants of one game."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from distcfr.cards import RANKS, SUITS
from distcfr.errors import BadParameter
from distcfr.games.base import Game


def cards_text(card_ids, one_suit: bool) -> str:
    """Cards written high card first; ranks only when the deck has one suit."""
    cards = sorted((int(c) for c in card_ids), reverse=True)
    if one_suit:
        return "".join(RANKS[c // 4] for c in cards)
    return "".join(RANKS[c // 4] + SUITS[c % 4] for c in cards)


MAX_STACKS = 1000


def parse_stacks(text: str) -> tuple[float, ...]:
    """``"3"`` -> (3.0,); ``"1.5:10:0.5"`` -> (1.5, 2.0, ..., 10.0), both ends included."""
    parts = text.split(":")
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise ValueError("write one stack (3) or an inclusive range start:stop:step (1.5:10:0.5)") from None
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError("stacks must be finite")
    if len(numbers) == 1:
        return (numbers[0],)
    if len(numbers) != 3:
        raise ValueError("a range is start:stop:step, e.g. 1.5:10:0.5")
    start, stop, step = numbers
    if step <= 0:
        raise ValueError(f"the step of a stack range must be positive, got {step:g}")
    if stop < start:
        raise ValueError(f"the stack range {text} is reversed (stop below start)")
    span = (stop - start) / step  # may be inf (a step of 1e-320) or far beyond any integer worth making
    if not span < MAX_STACKS:
        many = f"{span + 1:.3g}" if math.isfinite(span) else "infinitely many"
        raise ValueError(f"{many} stacks in one solve; at most {MAX_STACKS}")
    count = math.floor(span + 1e-9) + 1
    if count > MAX_STACKS:
        raise ValueError(f"{count} stacks in one solve; at most {MAX_STACKS}")
    return tuple(round(start + i * step, 12) for i in range(count))


def format_stacks(stacks: tuple) -> str:
    if len(stacks) == 1:
        return f"{stacks[0]:g}"
    step = stacks[1] - stacks[0]
    return f"{stacks[0]:g}:{stacks[-1]:g}:{round(step, 12):g}"


def stacks_field(default: float):
    """The ``stacks`` parameter: one stack or an inclusive range (:func:`parse_stacks`), ``default`` BB
    when the spec gives none."""
    return dataclasses.field(default=(default,), metadata={"parse": parse_stacks, "format": format_stacks})


@dataclasses.dataclass(frozen=True)
class DeckParams:
    """What a deuce-to-seven game's Params start with: the lowest ``ranks`` ranks in ``suits`` suits,
    hands of ``hand`` cards, and the stacks solved together."""

    ranks: int = 13
    suits: int = 1
    hand: int = 1
    stacks: tuple = stacks_field(3.0)


class LowballDeckGame(Game):
    """A game whose Params have ``ranks``, ``suits``, ``hand`` and ``stacks``."""

    def validate_deck(self) -> None:
        """BadParameter when the deck or the hand size is impossible."""
        r, s, h = self.params.ranks, self.params.suits, self.params.hand
        if not 2 <= r <= 13:
            raise BadParameter(f"{self.name} ranks must be between 2 and 13, got {r}")
        if not 1 <= s <= 4:
            raise BadParameter(f"{self.name} suits must be between 1 and 4, got {s}")
        if not 1 <= h <= 5:
            raise BadParameter(f"{self.name} hand must be between 1 and 5 cards, got {h}")
        if r * s < 4 * h:
            raise BadParameter(f"a deck of {r * s} cards is too small for {h}-card hands: both players "
                               f"replacing their whole hand need {4 * h}")

    @property
    def deck(self) -> np.ndarray:
        """(n_cards,) card ids of the deck: the lowest ``ranks`` ranks in ``suits`` suits."""
        return np.array([r * 4 + s for r in range(self.params.ranks) for s in range(self.params.suits)])

    def hand_label(self, cards) -> str:
        """A hand written high card first; ranks only when the deck has one suit."""
        return cards_text(cards, self.params.suits == 1)

    @property
    def variant_labels(self) -> tuple[str, ...]:
        return tuple(f"{s:g}BB" for s in self.params.stacks)

    @property
    def variant_values(self) -> tuple[float, ...]:
        return self.params.stacks

    def with_variant_values(self, values) -> LowballDeckGame:
        game = type(self)(dataclasses.replace(self.params, stacks=tuple(float(v) for v in values)))
        game.validate()
        return game

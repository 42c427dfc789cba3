"""What the deuce-to-seven games share: a deck of the lowest ``ranks`` ranks in ``suits`` suits,
hands of ``hand`` cards, labels for hands, and a list of stacks solved as variants of one game."""

from __future__ import annotations

import dataclasses

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

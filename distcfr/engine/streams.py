"""Every counter-based deal stream of a sampled solve, named in one place so that no two uses share
one. A stream is the Philox generator keyed by a seed (the run's, or a bracket's) whose counter
starts at (0, domain, a, b); the domain says what the stream is for, ``a`` and ``b`` which one:

* UNIFORM_DOMAIN (0): deals drawn whole, uniform over the deck (``sample_deals``: a shard, an iteration);
* CLASS_DOMAIN (1): deals in which one player holds given hand classes (``sample_deals_of_classes``,
  ``sample_class_deals``): (stream, first class); its streams are listed below;
* SOLVE_DOMAIN (2): a solve's half-iterations: (2 iteration + player, class block);
* CYCLE_DOMAIN (3): where each class's cycle over the other hands starts: (player, 0).

Streams of CLASS_DOMAIN: a bracket's two first sets per player (2 player + set), its refinement
rounds (REFINE_STREAM + 2 round + player), value readings (VALUE_STREAM), the focus round's pieces
(FOCUS_STREAM + 2 piece + player). :func:`class_streams` gives the range each takes at most.
"""

from __future__ import annotations

UNIFORM_DOMAIN, CLASS_DOMAIN, SOLVE_DOMAIN, CYCLE_DOMAIN = 0, 1, 2, 3
BRACKET_SETS = 0  # 2 player + set (0: choose the best response, 1: score it)
REFINE_STREAM = 4  # 4 + 2 round + player
VALUE_STREAM = 32
FOCUS_STREAM = 34  # 34 + 2 piece + player
MAX_REFINE_ROUNDS = 14  # refinement rounds a bracket may ask for: their streams stay below VALUE_STREAM


def class_streams(focus_pieces: int) -> dict[str, range]:
    """The streams of CLASS_DOMAIN each use takes, at most (``focus_pieces``: a focus round's pieces at most)."""
    return {"bracket sets": range(BRACKET_SETS, BRACKET_SETS + 4),
            "refinement rounds": range(REFINE_STREAM, REFINE_STREAM + 2 * MAX_REFINE_ROUNDS),
            "value readings": range(VALUE_STREAM, VALUE_STREAM + 1),
            "focus pieces": range(FOCUS_STREAM, FOCUS_STREAM + 2 * focus_pieces)}

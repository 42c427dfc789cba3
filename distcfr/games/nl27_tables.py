"""nl27's strategy tables as a deuce-to-seven player reads them: per hand (best first) the button's
opening, the big blind's responses, the button's answer to the big blind's raise, the draws on the
main lines, and after the draw on the main lines (limp-check, open-call) bet / check / call / raise /
fold per final hand; for a list of stacks the button's opening per hand across the stacks.

Numbers are whole percents. A row aggregates the private states of its hand (decks of several
suits: its hand class, suits averaged; after the draw: every state whose final hand is in the
class), each weighted by its *own reach*: the chance of its cards times the product of the
player's own action probabilities along the line, draws included. Where a line lets the opponent
choose (its draw count, its bet size), each choice is weighted by how often the opponent's whole
range makes it (cards taken as independent). A row the player reaches with less than
``REACH_MIN`` of a hand is left blank (``-``), as is an action a stack cannot make.

``SpotReader`` holds these numbers as arrays (the HTML page draws its charts from them).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from distcfr.cards import RANKS, lowball27_rank
from distcfr.games.draw27 import MASK_CODES
from distcfr.games.nl27_abstraction import draw_count
from distcfr.games.table import Table

_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # strategy -> where its rows lie, final hands
REACH_MIN = 0.005  # a row reached with less than this much of a hand (own reach x card chance) is blank
BUTTON, BIG_BLIND = 0, 1


def studied_lines(game) -> list[tuple[str, tuple]]:
    """(name, pre-draw history) of the lines players study that reach the draw: limp-check and each
    open called, as the game's first actions offer them (any stack)."""
    lines = []
    for code, label in game.actions(()):
        if code == "c":
            lines.append(("limp-check", ("c", "k")))
        elif code[0] == "r":
            lines.append((f"{label}-call", (code, "c")))
    return lines


@dataclass(frozen=True)
class Rows:
    """The rows of a table: labels (best hand first) and, per state of the acting player, its row."""

    labels: list[str]
    of_state: np.ndarray  # (n_states,) int64 row of each private state


@dataclass(frozen=True)
class Spot:
    """Action frequencies per row at one decision (or several merged): ``freq`` (n_rows, n_columns)
    in [0, 1], NaN where the row is not reached; ``reach`` (n_rows,) the own-reach mass of each row."""

    columns: list[str]
    freq: np.ndarray
    reach: np.ndarray


class SpotReader:
    """Own reach and action frequencies of one strategy at one variant (stack) of an nl27 game."""

    def __init__(self, game, strategy, variant: int):
        self.game, self.strategy, self.variant = game, strategy, variant
        self._reach: dict = {}
        self._shared = _SHARED.setdefault(strategy, {})  # what every variant's reader of it can reuse

    @cached_property
    def cards(self):
        from distcfr.games.nl27_cards import Nl27Cards

        return Nl27Cards.of(self.game)

    # ---- one decision -----------------------------------------------------------------------
    def probs(self, history: tuple, player: int) -> np.ndarray:
        """(n_states, n_actions) the action probabilities of each private state of ``player`` at
        ``history`` (where ``player`` acts)."""
        key = ("rows", tuple(history), player)
        if key not in self._shared:
            game, index = self.game, self.strategy.layout.label_index
            obs = game.observation(history, player)
            rows = np.array([index[f"{private}|{obs}"] for private in game.private_labels(history, player)])
            if game.keyed(history, player):  # each (hand, received) state reads its post key's row
                code = game.own_draw_code(history, player)
                rows = rows[self.cards.state_keys(self.cards.final_ranks_of(code), game.params.post)]
            self._shared[key] = rows, len(game.actions(history))
        rows, n_actions = self._shared[key]
        return self.strategy.probs[self.variant, rows, :n_actions].astype(np.float64)

    def reach(self, history: tuple, player: int) -> np.ndarray:
        """(n_states,) each private state's chance (1 per starting hand, 1/R per set of R cards a
        draw can bring) times ``player``'s own action probabilities along ``history``."""
        key = (tuple(history), player)
        if key not in self._reach:
            self._reach[key] = self._own_reach(tuple(history), player)
        return self._reach[key]

    def _own_reach(self, history: tuple, player: int) -> np.ndarray:
        game = self.game
        reach = np.ones(self.cards.n_hands)
        for i, code in enumerate(history):
            prefix = history[:i]
            if game.player(prefix) != player:
                continue
            codes = [c for c, _ in game.actions(prefix)]
            reach = reach * self.probs(prefix, player)[:, codes.index(code)]
            if code[0] in "dn":  # own draw: each hand's states after it, hand-major
                k = draw_count(code)
                r = game.received_per_hand(k)
                reach = np.repeat(reach, r) / r
        return reach

    def possible(self, history: tuple) -> bool:
        """Whether every action of ``history`` can be made at this stack (a size at or above the
        stack is masked there)."""
        for i, code in enumerate(history):
            legal = self.game.variant_legal(history[:i])  # (B, n_actions) or None
            codes = [c for c, _ in self.game.actions(history[:i])]
            if legal is not None and not legal[self.variant][codes.index(code)]:
                return False
        return True

    def own_moves(self, history: tuple, player: int) -> tuple:
        """The codes ``player`` played in ``history``, with their positions."""
        return tuple((i, code) for i, code in enumerate(history) if self.game.player(history[:i]) == player)

    def mass(self, history: tuple, player: int) -> float:
        """How often ``player``'s whole range plays along ``history`` (its states' own reach summed)."""
        return float(self.reach(history, player).sum())

    # ---- rows ---------------------------------------------------------------------------------
    @cached_property
    def hand_rows(self) -> Rows:
        """Starting hands (hand classes on decks of several suits), best first."""
        cards = self.cards
        return _rows(cards.hands, cards)

    @property
    def draw_codes(self) -> list[str]:
        """The draw actions: every mask (``d<m>``), or the rule's counts (``n<k>``)."""
        h = self.game.params.hand
        if self.game.params.draw == "rule":
            return [f"n{k}" for k in range(h + 1)]
        return [f"d{MASK_CODES[m]}" for m in range(2**h)]

    def final_rows(self, code: str) -> Rows:
        """The post-draw states after the draw ``code``, by final hand (class), in the final-hand
        order of ``final_order``."""
        key = ("final", code)
        if key not in self._shared:
            labels, of_state, _ = self._final_classes(code)
            order = {label: i for i, label in enumerate(self.final_order)}
            at = np.array([order[x] for x in labels], dtype=np.int64)
            self._shared[key] = Rows(self.final_order, at[of_state])
        return self._shared[key]

    @property
    def final_order(self) -> list[str]:
        """Every final hand class, best first."""
        if "final_order" not in self._shared:
            best: dict[str, int] = {}
            for code in self.draw_codes:
                labels, _, ranks = self._final_classes(code)
                for label, rank in zip(labels, ranks):
                    best[label] = min(rank, best.get(label, rank))
            self._shared["final_order"] = sorted(best, key=lambda x: (best[x], x))
        return self._shared["final_order"]

    def _final_classes(self, code: str):
        """(class label per post-draw state, its deuce-to-seven rank) after the draw ``code``."""
        key = ("classes", code)
        if key not in self._shared:
            self._shared[key] = self._classes(code)
        return self._shared[key]

    def _classes(self, code: str):
        """(class labels, each state's class (n_states,), each class's best rank) after ``code``."""
        final = self.cards.final_hands(self.cards.draw_masks(code), draw_count(code))  # (n_h * R, h) card ids
        return _classes_of(final)

    # ---- spots ----------------------------------------------------------------------------------
    def spot(self, histories: list[tuple], player: int, columns: dict[str, list[str]], rows_of=None) -> Spot:
        """Frequencies of action groups at the decisions of ``player`` after ``histories`` (one or
        several the opponent chooses between, each weighted by how often the opponent's range plays
        it). ``columns``: column name -> the action categories it adds up (``action_kind``);
        ``rows_of(history)``: the Rows of the player's states there (default: starting hands)."""
        rows_of = rows_of or (lambda history: self.hand_rows)
        names = list(columns)
        labels = None
        num = den = None
        weights = [self.mass(h, 1 - player) for h in histories]
        totals: dict[tuple, float] = {}  # the opponent's choices are weighed among histories of the same own choices
        for history, weight in zip(histories, weights):
            totals[self.own_moves(history, player)] = totals.get(self.own_moves(history, player), 0.0) + weight
        for history, weight in zip(histories, weights):
            rows = rows_of(history)
            if labels is None:
                labels = rows.labels
                num, den = np.zeros((len(labels), len(names))), np.zeros(len(labels))
            if weight <= 0:
                continue
            probs = self.probs(history, player)  # (n_states, n_actions)
            cats = [action_kind(code) for code, _ in self.game.actions(history)]
            reach = self.reach(history, player) * (weight / totals[self.own_moves(history, player)])  # (n_states,)
            den += np.bincount(rows.of_state, reach, len(labels))
            for j, name in enumerate(names):
                picked = [a for a, cat in enumerate(cats) if cat in columns[name]]
                if picked:
                    num[:, j] += np.bincount(rows.of_state, reach * probs[:, picked].sum(axis=1), len(labels))
        with np.errstate(invalid="ignore", divide="ignore"):
            freq = np.where(den[:, None] >= REACH_MIN, num / den[:, None], np.nan)
        return Spot(names, freq, den)

    def decision(self, history: tuple) -> Spot:
        """Every action of the player acting after ``history`` (one column each, by its label),
        per starting hand; NaN for an action this stack cannot make."""
        player = self.game.player(history)
        actions = self.game.actions(history)
        rows = self.hand_rows
        probs = self.probs(history, player)
        reach = self.reach(history, player)
        den = np.bincount(rows.of_state, reach, len(rows.labels))
        num = np.stack([np.bincount(rows.of_state, reach * probs[:, a], len(rows.labels))
                        for a in range(len(actions))], axis=1)
        legal = self.game.variant_legal(history)
        legal = np.ones(len(actions), bool) if legal is None else legal[self.variant]
        legal = legal & self.possible(history)  # (n_actions,) nothing where the line cannot happen at this stack
        with np.errstate(invalid="ignore", divide="ignore"):
            freq = np.where((den[:, None] >= REACH_MIN) & legal[None, :], num / den[:, None], np.nan)
        return Spot([_short(label) for _, label in actions], freq, den)

    # ---- lines ----------------------------------------------------------------------------------
    def main_lines(self) -> list[tuple[str, tuple]]:
        """(name, pre-draw history) of the lines that reach the draw with betting after it:
        limp-check and each open called (that this stack can make)."""
        return [(name, line) for name, line in studied_lines(self.game) if self.possible(line)]

    def draw_histories(self, line: tuple) -> list[tuple]:
        """The histories right after both draws on ``line`` (every pair of masks)."""
        codes = self.draw_codes
        return [(*line, a, b) for a in codes for b in codes]

    def post_rows(self, history: tuple, player: int) -> Rows:
        """Final-hand rows of ``player``'s states after ``history`` (past its draw)."""
        return self.final_rows(self.game.own_draw_code(history, player))

    def draw_choice(self, history: tuple) -> list[str | None]:
        """Per starting hand row: the draw most played at ``history`` (``pat`` or ``-`` and the ranks
        thrown), with its share when under 99.5%; None where the row is not reached."""
        player = self.game.player(history)
        rows, cards, h = self.hand_rows, self.cards, self.game.params.hand
        if not self.possible(history):
            return [None] * len(rows.labels)
        probs, reach = self.probs(history, player), self.reach(history, player)  # (n_h, 2^h), (n_h,)
        out = []
        for r in range(len(rows.labels)):
            members = np.flatnonzero(rows.of_state == r)
            mass = reach[members].sum()
            if mass < REACH_MIN:
                out.append(None)
                continue
            weights: dict[str, float] = {}
            for i in members:
                held = [int(c) for c in cards.deck[cards.hands[i]]]  # card ids, lowest first (mask bit j: held[j])
                for a, code in enumerate(self.draw_codes):
                    mask = int(cards.draw_masks(code)[i])
                    thrown = sorted((held[j] for j in range(h) if mask >> j & 1), reverse=True)
                    key = "pat" if not thrown else "-" + "".join(RANKS[c // 4] for c in thrown)
                    weights[key] = weights.get(key, 0.0) + reach[i] * probs[i, a] / mass
            choice = max(weights, key=weights.get)
            out.append(choice if weights[choice] > 0.995 else f"{choice} {weights[choice]:.0%}")
        return out


def _rows(hands: np.ndarray, cards) -> Rows:
    """Rows of the hands ((n, h) deck positions) by rank class, best (lowest 2-7 rank) first."""
    labels, of_state, best = _classes_of(cards.deck[hands])
    order = sorted(range(len(labels)), key=lambda c: (best[c], labels[c]))
    at = np.empty(len(labels), dtype=np.int64)
    at[order] = np.arange(len(labels))
    return Rows([labels[c] for c in order], at[of_state])


def _classes_of(ids: np.ndarray) -> tuple[list[str], np.ndarray, list[int]]:
    """Hands ((n, h) card ids) by rank class (their ranks high first, suits left out: on one suit
    the hand's label): (class labels, each hand's class (n,), each class's best 2-7 rank)."""
    ranks = np.sort(ids // 4, axis=1)[:, ::-1]  # (n, h) ranks, high first
    key = ranks @ (13 ** np.arange(ranks.shape[1] - 1, -1, -1))  # (n,) int64
    unique, first, of_state = np.unique(key, return_index=True, return_inverse=True)
    labels = ["".join(RANKS[r] for r in ranks[i]) for i in first]
    best = np.full(len(unique), np.iinfo(np.int64).max)
    np.minimum.at(best, of_state.ravel(), lowball27_rank(ids))
    return labels, of_state.ravel(), best.tolist()


def action_kind(code: str) -> str:
    """An action code's kind: fold, check, call, bet, raise, allin or draw."""
    kinds = {"f": "fold", "k": "check", "c": "call", "a": "allin", "b": "bet", "r": "raise", "d": "draw", "n": "draw"}
    return kinds[code[0]]


def _pct(x: float) -> str | None:
    return None if np.isnan(x) else f"{100 * x:.0f}"


def _table(title: str, spots: list[tuple[str, Spot]], labels: list[str]) -> Table:
    """One table of several spots side by side (columns ``<spot>: <action>``); a named spot no row
    reaches (its line is never played) is left out."""
    spots = [(name, spot) for name, spot in spots if not name or not np.isnan(spot.freq).all()]
    columns = [f"{name}: {col}" if name else col for name, spot in spots for col in spot.columns]
    table = Table(title, columns)
    for r, label in enumerate(labels):
        table.rows.append((label, [_pct(x) for _, spot in spots for x in spot.freq[r]]))
    return table


def _short(label: str) -> str:
    return label.replace("raise to ", "raise ")


def facing_text(game, history: tuple) -> str:
    """A pre-draw line as a short heading: ``limp``, ``open 2.5``, ``limp, raise 3``."""
    names = {"c": "limp", "a": "all-in"}
    parts = []
    for i, code in enumerate(history):
        label = dict(game.actions(history[:i]))[code]
        parts.append(names.get(code, _short(label)) if i == 0 else _short(label))
    return ", ".join(parts)


def strategy_tables(game, strategy, variant: int) -> list[Table]:
    """The tables ``train`` and ``show`` print for one stack (see the module docstring)."""
    reader = SpotReader(game, strategy, variant)
    rows = reader.hand_rows.labels
    per = "per hand" if game.params.suits == 1 else "per hand class (suits averaged)"
    tables = [_table(f"button's opening, % {per}, best first", [("", reader.decision(()))], rows)]
    first = [(code,) for code, _ in game.actions(()) if code != "f" and reader.possible((code,))]
    tables.append(_table(f"big blind's response, % {per}", [(facing_text(game, h), reader.decision(h)) for h in first],
                         rows))
    second = [(*h, code) for h in first for code, _ in game.actions(h)
              if code[0] in "ra" and game.player((*h, code)) == BUTTON and reader.possible((*h, code))]
    if second:
        tables.append(_table(f"button facing the big blind's raise, % {per} (- : not reached; a line the button "
                             "never plays left out)",
                             [(facing_text(game, h), reader.decision(h)) for h in second], rows))
    tables += _draw_tables(game, reader, per)
    for name, line in reader.main_lines():
        tables.append(_post_table(game, reader, name, line))
    return [t for t in tables if any(x is not None for _, cells in t.rows for x in cells)]  # none all blank


def _draw_tables(game, reader: SpotReader, per: str) -> list[Table]:
    """Draws on the main lines: the big blind's, and the button's per big-blind draw count."""
    h = game.params.hand
    columns, cells = [], []
    for name, line in reader.main_lines():
        columns.append(f"{name}: BB")
        cells.append(reader.draw_choice(line))
        for k in range(h + 1):
            code = next(c for c in reader.draw_codes if draw_count(c) == k)
            columns.append(f"{name}: BTN, BB drew {k}")
            cells.append(reader.draw_choice((*line, code)))
    if not columns:
        return []
    table = Table(f"draws on the main lines {per} (pat, or - and the ranks thrown; - alone: not reached)", columns)
    for r, label in enumerate(reader.hand_rows.labels):
        table.rows.append((label, [column[r] for column in cells]))
    return [table]


POST_COLUMNS = {  # spot -> column -> action categories
    "bb": {"BB bet": ["bet", "allin"], "BB check": ["check"]},
    "btn_checked": {"BTN bet": ["bet", "allin"], "BTN check": ["check"]},
    "btn_facing": {"BTN call": ["call"], "BTN raise": ["raise", "allin"], "BTN fold": ["fold"]},
    "bb_facing": {"BB call": ["call"], "BB raise": ["raise", "allin"], "BB fold": ["fold"]},
}


def post_spots(game, reader: SpotReader, line: tuple) -> dict[str, Spot]:
    """After the draw on ``line``, per final hand: the big blind's first action, the button's after a
    check, the button facing a bet, the big blind facing a bet after checking."""
    drawn = reader.draw_histories(line)

    def bets(history: tuple) -> list[tuple]:
        return [(*history, code) for code, _ in game.actions(history) if code[0] in "ba"]

    def rows(player):
        return lambda history: reader.post_rows(history, player)

    checked = [(*h, "k") for h in drawn]
    return {
        "bb": reader.spot(drawn, BIG_BLIND, POST_COLUMNS["bb"], rows(BIG_BLIND)),
        "btn_checked": reader.spot(checked, BUTTON, POST_COLUMNS["btn_checked"], rows(BUTTON)),
        "btn_facing": reader.spot([b for h in drawn for b in bets(h)], BUTTON, POST_COLUMNS["btn_facing"],
                                  rows(BUTTON)),
        "bb_facing": reader.spot([b for h in checked for b in bets(h)], BIG_BLIND, POST_COLUMNS["bb_facing"],
                                 rows(BIG_BLIND)),
    }


def _post_table(game, reader: SpotReader, name: str, line: tuple) -> Table:
    spots = post_spots(game, reader, line)
    title = (f"after the draw, {name}: % per final hand, best first: the big blind's first action, the button's "
             "after a check, the button facing a bet, the big blind facing a bet after checking (bet sizes and "
             "the opponent's draws weighted by how often it plays them; - : not reached)")
    return _table(title, [("", spot) for spot in spots.values()], reader.final_order)


def opening_kinds(game) -> list[tuple[str, str]]:
    """(name, action category) of the button's first actions the game has: fold, limp, open (every
    size together), all-in."""
    kinds = [("fold", "fold"), ("limp", "call"), ("open", "raise"), ("all-in", "allin")]
    have = {action_kind(code) for code, _ in game.actions(())}
    return [(name, category) for name, category in kinds if category in have]


def opening_summary(game, strategy) -> list[Table]:
    """The button's opening per hand (rows) and stack (columns): fold/limp/open/all-in in whole %
    (open: every open size together; limp left out where the game has none)."""
    kinds = opening_kinds(game)
    readers = [SpotReader(game, strategy, v) for v in range(len(game.variant_labels))]
    spots = [r.spot([()], BUTTON, {name: [category] for name, category in kinds}) for r in readers]
    per = "per hand" if game.params.suits == 1 else "per hand class (suits averaged)"
    table = Table(f"button's {'/'.join(name for name, _ in kinds)} in % {per} (rows) x stack (columns)",
                  list(game.variant_labels))
    for r, label in enumerate(readers[0].hand_rows.labels):
        table.rows.append((label, ["/".join(f"{100 * x:.0f}" for x in spot.freq[r]) for spot in spots]))
    return [table]


def hand_class(game, text: str) -> str:
    """The hand class (ranks, high first) ``text`` names: ``96``, ``69`` or ``9s6h`` -> ``96``;
    BadParameter when the deck has no such starting or final hand."""
    from distcfr.errors import BadParameter
    from distcfr.games.nl27_cards import Nl27Cards

    ranks = sorted((c.upper() for c in text.strip() if c.upper() in RANKS and c not in "cdhs"),
                   key=RANKS.index, reverse=True)
    label = "".join(ranks)
    cards = Nl27Cards.of(game)
    known = _rows(cards.hands, cards).labels
    if len(ranks) != game.params.hand or label not in known:
        examples = ", ".join(known[:3])
        raise BadParameter(f"--hand {text[:40]!r}: no {game.params.hand}-card hand of {game.spec} (its hands "
                           f"are written by rank, e.g. {examples})")
    return label


def hand_tables(game, strategy, variant: int, label: str) -> list[Table]:
    """``strategy_tables`` with only the row of the hand class ``label`` (as a starting hand
    before the draw, as a final hand after it)."""
    tables = []
    for table in strategy_tables(game, strategy, variant):
        rows = [(name, cells) for name, cells in table.rows if name == label]
        tables.append(Table(table.title, table.columns, rows))
    return [t for t in tables if t.rows]


def hand_text(strategy, label: str, width: int | None = None) -> str:
    """Per stack, the rows of the hand class ``label`` in every table, rendered (``show --hand``)."""
    from distcfr.games.table import fit_line

    game, out = strategy.game, []
    for v, stack in enumerate(game.variant_labels):
        out.append(fit_line(f"== {game.spec}, stack {stack}: {label} ==", width))
        out.extend(t.render(width) + "\n" for t in hand_tables(game, strategy, v, label))
    return "\n".join(out)

"""Strategies in other people's formats: a plain JSON table (infoset label -> action ->
probability) and OpenSpiel's tabular policy for ``kuhn_poker`` and ``leduc_poker``.

The OpenSpiel mapping is written from the rules, without OpenSpiel: distcfr's infosets
use ranks only, so one distcfr row fills every OpenSpiel information state that differs
from it only by suits (Leduc cards are ids 0..5, rank = id // 2: J J Q Q K K). Information
state strings, exactly as OpenSpiel 1.5 to 2.0 writes them:

* kuhn_poker: the card id (0 J, 1 Q, 2 K), then the actions, ``p`` pass and ``b`` bet:
  ``"1pb"``; actions 0 pass, 1 bet.
* leduc_poker: ``[Observer: p][Private: card][Round r][Player: p][Pot: pot][Money: m1 m2]``,
  ``[Public: card]`` in round 2, then ``[Round1: ids][Round2: ids]`` (action ids separated by
  spaces; each player starts with 100 chips and antes 1); actions 0 fold, 1 call, 2 raise.

``openspiel_policy`` turns the table into an OpenSpiel ``TabularPolicy`` (needs the optional
``open-spiel`` package, imported only there).
"""

from __future__ import annotations

import json

import numpy as np

from distcfr.errors import BadFile, BadParameter
from distcfr.games.leduc import replay

OPENSPIEL_GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}  # distcfr spec -> OpenSpiel game
OPENSPIEL_ACTIONS = {"kuhn": ("p", "b"), "leduc": ("f", "c", "r")}  # OpenSpiel action id -> distcfr code
OPENSPIEL_ACTION_NAMES = {"kuhn": ("Pass", "Bet"), "leduc": ("Fold", "Call", "Raise")}
RANKS = "JQK"
LEDUC_CHIPS = 100  # OpenSpiel's starting money per player


def json_table(strategy) -> dict:
    """``{infoset label: {action: probability}}``; for a game with several variants (a list
    of stacks), ``{variant label: that map}``."""
    layout = strategy.layout

    def one(variant: int) -> dict:
        return {label: {a: float(strategy.probs[variant, row, i]) for i, a in enumerate(layout.action_labels[row])}
                for row, label in enumerate(layout.labels)}

    labels = strategy.game.variant_labels
    if len(labels) == 1:
        return one(0)
    return {label: one(v) for v, label in enumerate(labels)}


def openspiel_table(strategy) -> dict:
    """The strategy as OpenSpiel sees it: ``{"game": "leduc_poker", "actions": [...],
    "policy": {information state string: [probability of each OpenSpiel action]}}``."""
    name = strategy.game.spec
    if name not in OPENSPIEL_GAMES:
        raise BadParameter(f"OpenSpiel export is for {' and '.join(OPENSPIEL_GAMES)}, not {name}")
    layout, tree = strategy.layout, strategy.layout.tree
    codes = OPENSPIEL_ACTIONS[name]
    policy = {}
    for node in np.flatnonzero(tree.player >= 0):
        history, player = tree.histories[node], int(tree.player[node])
        observation = strategy.game.observation(history, player)
        for info, private in _infostates(name, history, player):
            row = layout.label_index[f"{private}|{observation}"]
            legal = [c for c, _ in strategy.game.actions(history)]
            probs = [float(strategy.probs[0, row, legal.index(c)]) if c in legal else 0.0 for c in codes]
            policy[info] = probs
    return {"game": OPENSPIEL_GAMES[name], "actions": list(OPENSPIEL_ACTION_NAMES[name]), "policy": policy}


def _infostates(name: str, history: tuple[str, ...], player: int):
    """(OpenSpiel information state string, distcfr private label) at one public history."""
    if name == "kuhn":
        for card in range(3):
            yield f"{card}{''.join(history)}", RANKS[card]
        return
    state = replay(history)
    ids = {code: str(i) for i, code in enumerate(OPENSPIEL_ACTIONS["leduc"])}
    split = len(history) if state.round2_start is None else state.round2_start
    round1 = " ".join(ids[c] for c in history[:split])
    round2 = " ".join(ids[c] for c in history[split:])
    c1, c2 = state.contributions
    head = f"[Round {state.round + 1}][Player: {player}][Pot: {c1 + c2}][Money: {LEDUC_CHIPS - c1} {LEDUC_CHIPS - c2}]"
    tail = f"[Round1: {round1}][Round2: {round2}]"
    for card in range(6):
        private = f"[Observer: {player}][Private: {card}]{head}"
        if state.round == 0:
            yield private + tail, RANKS[card // 2]
        else:
            for board in range(6):
                if board != card:
                    yield f"{private}[Public: {board}]{tail}", f"{RANKS[card // 2]}/{RANKS[board // 2]}"


def openspiel_policy(table):
    """An ``open_spiel.python.policy.TabularPolicy`` from ``openspiel_table``'s output, a
    Strategy, or the path of a file written by ``python -m distcfr.show --format openspiel``.
    Needs the optional ``open-spiel`` package."""
    if isinstance(table, str) or hasattr(table, "read_text"):
        table = _read_json(table)
    elif not isinstance(table, dict):
        table = openspiel_table(table)
    try:
        import pyspiel
        from open_spiel.python import policy as os_policy
    except ImportError:
        raise BadParameter("loading an OpenSpiel policy needs the open-spiel package: pip install open-spiel") from None
    game = pyspiel.load_game(table["game"])
    tabular = os_policy.TabularPolicy(game)
    missing = [info for info in tabular.state_lookup if info not in table["policy"]]
    if missing:
        raise BadFile(f"the table has no row for OpenSpiel information state {missing[0]!r}")
    for info, index in tabular.state_lookup.items():
        tabular.action_probability_array[index] = table["policy"][info]
    return tabular


def _read_json(path) -> dict:
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as err:
        raise BadFile(f"cannot read {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise BadFile(f"{path} is not JSON: {err}") from None
    if not isinstance(data, dict) or not {"game", "policy"} <= set(data):
        raise BadFile(f"{path} is not an OpenSpiel export of distcfr (no game and policy)")
    return data

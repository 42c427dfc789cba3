"""The range form of the exact CFR pass (nl27): per public node, one vector per player over its own
private states, the two players' states paired only at terminals.

A deal of nl27 is both starting hands and the stub's order; given the hands, every pair of
disjoint sets (the big blind's k1 received cards, the button's k0) is equally likely, so the
chance weight of a (button state, big blind state) pair at a terminal is a constant of the draw
counts times whether the two states' cards are disjoint. A terminal's counterfactual values are
then one matrix product: button values = M @ big blind reach, big blind values = -M.T @ button
reach, with M = weight x compatibility (x the showdown's sign: +1 where the button's final hand is
lower, -1 where higher, 0 on a tie) and the pot in the variant's amounts. Terminals sharing a
matrix share one product over all their columns.

A player's draw changes its state space from hands to (hand, received cards), hand-major: reach
repeats over the received sets; values sum over them back to the hand. Shards cut the button's
starting hands (its states of those hands; the big blind's are whole), so shard sums add up to
the full pass exactly, as the deal-form shards do. Python loops run over public nodes only.

The card abstractions (``nl27_abstraction``) change two things. A draw of the rule (``n<k>``) maps
each hand to the final hands of its own rule mask. With ``post`` other than ``recall``, the acting
player's rows past its draw are the post keys of its final hands: its states read the row of their
key (a gather), and what the rows sum (action values, own reach, a best response's values) is
summed over the states of each key (a bincount), so a best response too chooses per key.
"""

from __future__ import annotations

import math

import numpy as np

from distcfr.engine.layout import Layout
from distcfr.games.nl27_abstraction import draw_count
from distcfr.games.nl27_cards import Nl27Cards
from distcfr.games.tree import TERMINAL


class RangeShard:
    """nl27's public tree, its private state spaces and terminal matrices, for the button's starting
    hands [start, stop). Plain numpy; the CFR and best-response passes are methods."""

    def __init__(self, layout: Layout, start: int, stop: int):
        game, tree = layout.game, layout.tree
        self.layout, self.tree = layout, tree
        cards = self.cards = Nl27Cards.of(game)
        self.lo, self.hi = start, stop
        h, n = game.params.hand, len(cards.deck)
        n_h, b = cards.n_hands, layout.n_variants
        self.shape_b = b
        stub = n - 2 * h
        self._pair_weight = 1 / (n_h * math.comb(n - h, h))  # one ordered pair of disjoint hands

        # per node: each player's own draw code (None before it), and for the acting player its
        # infoset rows, whether the node is a draw, and (keyed nodes) each of its states' post key
        self.draws: list[tuple] = []
        self.rows: list[slice | None] = []
        self.keys: list[np.ndarray | None] = []  # (states of the shard,) int64 row within ``rows``
        self.is_draw: list[bool] = []
        for node in range(tree.n_nodes):
            history = tree.histories[node]
            draws = tuple(game.own_draw_code(history, p) for p in (0, 1))
            self.draws.append(draws)
            player = int(tree.player[node])
            self.keys.append(None)
            if player == TERMINAL:
                self.rows.append(None)
                self.is_draw.append(False)
                continue
            lo, hi = self._state_range(player, draws[player])
            offset = int(layout.node_offset[node])
            if game.keyed(history, player):
                n_keys = game.private_count(history, player)
                self.rows.append(slice(offset, offset + n_keys))
                self.keys[node] = cards.state_keys(self._final_ranks(draws[player]), game.params.post)[lo:hi]
            else:
                self.rows.append(slice(offset + lo, offset + hi))
            self.is_draw.append(tree.action_labels[node][0] == "stand pat")
        self.children = [range(int(tree.first_child[n]), int(tree.first_child[n] + tree.n_children[n]))
                         for n in range(tree.n_nodes)]
        self.repeats = [[game.received_per_hand(draw_count(tree.histories[c][-1])) for c in self.children[n]]
                        if self.is_draw[n] else None for n in range(tree.n_nodes)]  # states per hand after a draw
        self.decisions = [(n, int(tree.player[n])) for n in range(tree.n_nodes) if tree.player[n] != TERMINAL]
        # the chance of one private state of the acting player: a hand, then (hand, cards received)
        self.state_chance = [None if self.rows[n] is None else
                             1 / (n_h * (1 if draws[p] is None else game.received_per_hand(_count(draws[p]))))
                             for n, draws, p in zip(range(tree.n_nodes), self.draws, tree.player.tolist())]

        # terminals grouped by the matrix their values need; amounts (B,) in the button's payoff
        self.terminal_groups: dict[tuple, list[tuple[int, np.ndarray]]] = {}
        for node in np.flatnonzero(tree.player == TERMINAL):
            kind, amount = game.terminal_payoff(tree.histories[node])
            m0, m1 = self.draws[node]
            if m0 is None or m1 is None:
                key = ("hands",)
            elif kind == "fold":
                key = ("fold", _count(m0), _count(m1))
            else:
                key = ("showdown", m0, m1)
            self.terminal_groups.setdefault(key, []).append((int(node), np.asarray(amount, dtype=float)))
        self.matrices = {key: self._matrix(key, stub) for key in self.terminal_groups}
        self.terminal_nodes = {key: [z for z, _ in group] for key, group in self.terminal_groups.items()}
        self.terminal_amounts = {key: np.stack([np.broadcast_to(a, (b,)) for _, a in group])
                                 for key, group in self.terminal_groups.items()}  # (T, B)

    def _state_range(self, player: int, draw: str | None) -> tuple[int, int]:
        """The [lo, hi) of this shard's states of ``player`` among its private states."""
        per_hand = 1 if draw is None else self.layout.game.received_per_hand(_count(draw))
        if player == 0:
            return self.lo * per_hand, self.hi * per_hand
        return 0, self.cards.n_hands * per_hand

    def _bits(self, player: int, draw: str | None) -> np.ndarray:
        if draw is None:
            bits = self.cards.hand_bits
        else:
            bits = self.cards.post_bits(_count(draw))
        lo, hi = self._state_range(player, draw)
        return bits[lo:hi]

    def _final_ranks(self, draw: str) -> np.ndarray:
        """(all states after ``draw``,) the final hand's deuce-to-seven rank: a mask's, or the rule's."""
        return self.cards.final_ranks_of(draw)

    def _matrix(self, key: tuple, stub: int) -> np.ndarray:
        """(button states of the shard, big blind states) float64: chance weight x compatibility
        (x the showdown's sign)."""
        if key[0] == "hands":
            x, y, weight = self._bits(0, None), self._bits(1, None), self._pair_weight
        else:
            if key[0] == "fold":
                k0, k1 = key[1], key[2]
                m0, m1 = f"n{k0}", f"n{k1}"  # any draws of those counts have the same card sets
            else:
                m0, m1 = key[1], key[2]
                k0, k1 = _count(m0), _count(m1)
            x, y = self._bits(0, m0), self._bits(1, m1)
            weight = self._pair_weight / (math.comb(stub, k1) * math.comb(stub - k1, k0))
        matrix = ((x[:, None] & y[None, :]) == 0) * weight  # (X, Y)
        if key[0] == "showdown":
            lo, hi = self._state_range(0, m0)
            mine = self._final_ranks(m0)[lo:hi]
            theirs = self._final_ranks(m1)
            matrix *= np.sign(theirs[None, :] - mine[:, None])
        return matrix

    # ---- passes -----------------------------------------------------------------------------------
    def reach(self, sigma_t: np.ndarray, players=(0, 1), out: list | None = None) -> list:
        """Each player's own reach per node: [p][node] (states, B); ``sigma_t`` is (n_is, B, A)."""
        tree, b = self.tree, self.shape_b
        out = out if out is not None else [[None] * tree.n_nodes, [None] * tree.n_nodes]
        for p in players:
            lo, hi = self._state_range(p, None)
            out[p][0] = np.ones((hi - lo, b))
        for node, q in self.decisions:
            for p in players:
                here = out[p][node]
                if p != q:
                    for child in self.children[node]:
                        out[p][child] = here
                    continue
                sigma = self.state_sigma(sigma_t, node)  # (S, B, A)
                repeats = self.repeats[node]
                for a, child in enumerate(self.children[node]):
                    step = here * sigma[:, :, a]
                    out[p][child] = step if repeats is None else np.repeat(step, repeats[a], axis=0)
        return out

    def terminal_values(self, reach: list, player: int) -> dict[int, np.ndarray]:
        """{terminal: (states of ``player``, B) counterfactual values in ``player``'s payoff}."""
        out = {}
        b = self.shape_b
        for key, nodes in self.terminal_nodes.items():
            matrix = self.matrices[key]
            amounts = self.terminal_amounts[key]  # (T, B) the button's payoff per unit of chance
            if player == 0:
                other = np.stack([reach[1][z] for z in nodes], axis=1)  # (Y, T, B)
                values = (matrix @ other.reshape(len(other), -1)).reshape(-1, len(nodes), b)  # (X, T, B)
                values *= amounts
            else:
                other = np.stack([reach[0][z] for z in nodes], axis=1) * -amounts  # (X, T, B)
                values = (matrix.T @ other.reshape(len(other), -1)).reshape(-1, len(nodes), b)  # (Y, T, B)
            for t, z in enumerate(nodes):
                out[z] = values[:, t]
        return out

    def child_values(self, node: int, values: list) -> list[np.ndarray]:
        """The acting player's value of each action at ``node`` per its states there (B last): a
        draw's children sum over the cards received back to the hand."""
        repeats = self.repeats[node]
        if repeats is None:
            return [values[child] for child in self.children[node]]
        return [values[child].reshape(-1, r, self.shape_b).sum(axis=1)
                for child, r in zip(self.children[node], repeats)]

    def cfr_values(self, sigma_t: np.ndarray, reach: list, player: int, q: np.ndarray | None = None,
                   own_reach: np.ndarray | None = None) -> np.ndarray:
        """Bottom-up counterfactual values of ``player`` under ``sigma_t``; adds its action values to
        ``q`` (B, n_p, A) and its own reach to ``own_reach`` (B, n_p) at its decisions (n_p: the
        player's rows of the table). Returns its (states, B) values at the root."""
        tree = self.tree
        values = [None] * tree.n_nodes  # per node: (states, B)
        counts_own_reach = player == 0 or self.lo == 0  # the big blind's whole range lies in every shard: count it once
        first_row = self.layout.player_rows[player].start
        for node, value in self.terminal_values(reach, player).items():
            values[node] = value
        for node, q_player in reversed(self.decisions):
            if q_player != player:
                children = self.children[node]
                total = values[children[0]].copy()
                for child in children[1:]:
                    total += values[child]
                values[node] = total
                continue
            rows = self.rows[node]
            sigma = self.state_sigma(sigma_t, node)
            kids = self.child_values(node, values)
            total = kids[0] * sigma[:, :, 0]
            for a in range(1, len(kids)):
                total += kids[a] * sigma[:, :, a]
            values[node] = total
            if q is not None:
                local = slice(rows.start - first_row, rows.stop - first_row)
                keys = self.keys[node]
                if keys is None:
                    for a, kid in enumerate(kids):
                        q[:, local, a] += kid.T
                else:
                    per_key = sum_by_key(keys, np.stack(kids, axis=-1), rows.stop - rows.start)  # (n_keys, B, nc)
                    q[:, local, :len(kids)] += per_key.transpose(1, 0, 2)
                if counts_own_reach:  # weighed by each state's chance, as the deal form's sums are
                    own = reach[player][node] * self.state_chance[node]  # (S, B)
                    own_reach[:, local] += (own if keys is None else sum_by_key(keys, own, rows.stop - rows.start)).T
        return values[0]

    def state_sigma(self, sigma_t: np.ndarray, node: int) -> np.ndarray:
        """(states of the acting player, B, A): its strategy at ``node`` per state (a keyed node's
        states read their key's row)."""
        sigma = sigma_t[self.rows[node]]
        keys = self.keys[node]
        return sigma if keys is None else sigma[keys]


class RangeCFRKernel:
    """The CFR sums of one range shard (what ``CFRKernel`` is to a deal shard)."""

    def __init__(self, shard: RangeShard):
        self.shard = shard
        self.reach = None  # [p][node] each player's own reach under the last strategy seen
        self.seen: list[np.ndarray | None] = [None, None]  # each player's rows of that strategy

    def cfr_sums(self, sigma: np.ndarray, players: tuple[int, ...]) -> dict:
        """Per updated player p: (Q_p (B, n_p, A) counterfactual action values in p's payoff,
        reach_p (B, n_p) own-reach sums), over p's rows of the infoset table."""
        shard, layout = self.shard, self.shard.layout
        sigma_t = sigma.transpose(1, 0, 2)  # (n_is, B, A) view
        rows = layout.player_rows
        changed = tuple(p for p in (0, 1)
                        if self.seen[p] is None or not np.array_equal(self.seen[p], sigma[:, rows[p]]))
        if changed:  # with alternating updates only the player updated last
            self.reach = shard.reach(sigma_t, changed, self.reach)
            for p in changed:
                self.seen[p] = sigma[:, rows[p]].copy()
        reach = self.reach
        out = {}
        for p in players:
            n_p = rows[p].stop - rows[p].start
            q = np.zeros((layout.n_variants, n_p, layout.max_actions))
            own = np.zeros((layout.n_variants, n_p))
            shard.cfr_values(sigma_t, reach, p, q, own)
            out[p] = (q, own)
        return out


class RangeBestResponseKernel:
    """Profile values and both players' best responses over one range shard, in the steps the
    evaluator drives level by level (see ``BestResponseKernel``)."""

    def __init__(self, shard: RangeShard):
        self.shard = shard
        self._state = None

    def profile_value(self, sigma: np.ndarray) -> np.ndarray:
        """(B,) the button's chance-weighted expected payoff over this shard under ``sigma``."""
        sigma_t = sigma.transpose(1, 0, 2)
        reach = self.shard.reach(sigma_t)
        return self.shard.cfr_values(sigma_t, reach, 0).sum(axis=0)

    def br_start(self, sigma: np.ndarray, own_reach: list | None = None) -> None:
        """``own_reach[p][node]``: (states, B) weights of player p's states at its keyed nodes when a
        key's choice sums their values (its own reach under a response found before, see
        ``keyed_best_response_values``); None weighs every state alike."""
        shard = self.shard
        reach = shard.reach(sigma.transpose(1, 0, 2))
        values = [[None] * shard.tree.n_nodes for _ in (0, 1)]
        for p in (0, 1):
            for node, value in shard.terminal_values(reach, p).items():
                values[p][node] = value
        self._state = {"values": values, "kids": {}, "own": own_reach}

    def _require_state(self) -> dict:
        from distcfr.engine.best_response import BestResponseStateLost

        if self._state is None:
            raise BestResponseStateLost
        return self._state

    def br_level_q(self, level: int) -> np.ndarray | None:
        state = self._require_state()
        shard, layout = self.shard, self.shard.layout
        tree = shard.tree
        lo, hi = int(tree.level_start[level]), int(tree.level_start[level + 1])
        values, kids = state["values"], state["kids"]
        depth_rows = [layout.rows_at(p, level) for p in (0, 1)]
        n_first = depth_rows[0].stop - depth_rows[0].start
        n_rows = n_first + depth_rows[1].stop - depth_rows[1].start
        if n_rows == 0:
            return None
        q = np.zeros((n_rows, layout.n_variants, layout.max_actions))
        for node in range(lo, hi):
            player = int(tree.player[node])
            if player == TERMINAL:
                continue
            other = 1 - player
            children = shard.children[node]
            total = values[other][children[0]].copy()
            for child in children[1:]:
                total += values[other][child]
            values[other][node] = total
            node_kids = np.stack(shard.child_values(node, values[player]), axis=-1)  # (S, B, nc)
            kids[node] = node_kids
            rows, keys = shard.rows[node], shard.keys[node]
            base = depth_rows[player].start - (0 if player == 0 else n_first)
            if keys is not None:  # a keyed node: one choice per key, its states' values summed
                own = state["own"]
                weighted = node_kids if own is None else node_kids * own[player][node][..., None]
                node_kids = sum_by_key(keys, weighted, rows.stop - rows.start)
            q[rows.start - base:rows.stop - base, :, :node_kids.shape[-1]] += node_kids
        return q.transpose(1, 0, 2)

    def br_level_apply(self, level: int, best: np.ndarray) -> None:
        state = self._require_state()
        shard, layout = self.shard, self.shard.layout
        tree = shard.tree
        lo, hi = int(tree.level_start[level]), int(tree.level_start[level + 1])
        depth_rows = [layout.rows_at(p, level) for p in (0, 1)]
        n_first = depth_rows[0].stop - depth_rows[0].start
        for node in range(lo, hi):
            player = int(tree.player[node])
            if player == TERMINAL:
                continue
            rows = shard.rows[node]
            base = depth_rows[player].start - (0 if player == 0 else n_first)
            choice = best[:, rows.start - base:rows.stop - base].T  # (S, B), or (n_keys, B) at a keyed node
            if shard.keys[node] is not None:
                choice = choice[shard.keys[node]]
            node_kids = state["kids"].pop(node)
            state["values"][player][node] = np.take_along_axis(node_kids, choice[..., None], axis=-1)[..., 0]

    def br_root(self) -> np.ndarray:
        state = self._require_state()
        self._state = None
        return np.stack([state["values"][p][0].sum(axis=0) for p in (0, 1)])


def keyed_best_response_values(layout: Layout, sigma: np.ndarray, rounds: int = 10) -> np.ndarray:
    """(2, B) what each player gets by best-responding to ``sigma`` (B, n_is, A) in an nl27 game
    whose post keys forget cards, one process. With perfect recall the level-by-level response is
    the best; a key, though, holds states the responder reaches or not by its own earlier choices,
    so each round weighs a key's states by the responder's own reach under the previous round's
    response (the first round: all alike) and chooses again, keeping the best values. Every
    round's values are those of a strategy of the abstract game: a lower bound of its best
    response, and at least the level-by-level one."""
    tree, b = layout.tree, layout.n_variants
    shard = RangeShard(layout, 0, layout.game.n_hands)
    kernel = RangeBestResponseKernel(shard)
    best_values, own, last = None, None, None
    for _ in range(rounds):
        kernel.br_start(sigma, own)
        choice = np.zeros((b, layout.n_infosets), dtype=np.int64)  # (B, n_is) the response's actions
        for level in reversed(range(tree.n_levels)):
            total = kernel.br_level_q(level)  # (B, n_rows, A)
            if total is None:
                continue
            depth_rows = [layout.rows_at(p, level) for p in (0, 1)]
            mask = np.concatenate([layout.variant_mask[:, rows] for rows in depth_rows], axis=1)
            best = np.where(mask, total, -np.inf).argmax(axis=-1)  # (B, n_rows)
            kernel.br_level_apply(level, best)
            n_first = depth_rows[0].stop - depth_rows[0].start
            choice[:, depth_rows[0]], choice[:, depth_rows[1]] = best[:, :n_first], best[:, n_first:]
        values = kernel.br_root()  # (2, B)
        best_values = values if best_values is None else np.maximum(best_values, values)
        if last is not None and np.array_equal(choice, last):
            break
        last = choice
        pure = np.zeros((b, layout.n_infosets, layout.max_actions))
        np.put_along_axis(pure, choice[..., None], 1.0, axis=-1)
        reach = shard.reach(pure.transpose(1, 0, 2))  # each player's own reach under its response
        own = [[reach[p][n] if shard.keys[n] is not None and tree.player[n] == p else None
                for n in range(tree.n_nodes)] for p in (0, 1)]
    return best_values


def _count(draw: str) -> int:
    return draw_count(draw)


def sum_by_key(keys: np.ndarray, values: np.ndarray, n_keys: int) -> np.ndarray:
    """(n_keys, ...) the rows of ``values`` (S, ...) summed per key (``keys`` (S,) int64 in [0, n_keys))."""
    flat = values.reshape(len(keys), -1)  # (S, C)
    c = flat.shape[1]
    index = (keys[:, None] * c + np.arange(c)[None, :]).ravel()  # (S * C,) the cell of each value
    return np.bincount(index, weights=flat.ravel(), minlength=n_keys * c).reshape(n_keys, *values.shape[1:])


def range_shard_bytes(sizes, start: int, stop: int) -> tuple[int, int, int]:
    """(persistent, alive during a best response, transient peak) bytes of one range shard of the
    button's hands [start, stop), from the public tree (``sizes``: a Layout or GameSizes)."""
    game, tree = sizes.game, sizes.tree
    b, table = sizes.n_variants, sizes.n_variants * sizes.n_infosets * sizes.max_actions
    share = (stop - start) / game.n_hands
    states = np.zeros(2)  # each player's states summed over the nodes (the button's: this shard's share)
    matrices = {}
    for node, history in enumerate(tree.histories):
        counts = [game.state_count(history, p) for p in (0, 1)]
        states += (counts[0] * share, counts[1])
        if tree.player[node] == TERMINAL:
            draws = tuple(game.own_draw_code(history, p) for p in (0, 1))
            matrices[draws] = counts[0] * share * counts[1]
    nodes_x_states = float(states.sum()) * b * 8
    matrix_bytes = 2 * sum(matrices.values()) * 8  # showdown and fold matrices of each draw-count pair
    persistent = int(matrix_bytes + 2 * nodes_x_states)  # the matrices; reach (kept between calls)
    pass_peak = int(2 * nodes_x_states + table * 8 * 1.5)  # values and terminal values; q and own reach
    return persistent, int(2 * nodes_x_states), pass_peak

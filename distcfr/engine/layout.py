"""Information-set numbering of a game: which row of the (n_infosets, max_actions) tables
each (decision node, private information) pair uses, with human-readable labels.

Infosets are numbered player by player (all of player 1's, then all of player 2's) and,
within a player, by depth, so the rows of one player, or of one player at one depth, are a
contiguous range and updates work on views.

Label format: ``"<private>|<observation>"``, e.g. Kuhn ``"K|pb"`` (a king, after check-bet),
Leduc ``"K/Q|rc.c"`` (a king with a queen on board, after raise-call then check).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from distcfr.games.base import Game
from distcfr.games.tree import TERMINAL


@dataclass(frozen=True)
class InfosetGroup:
    """The infosets of one (player, observation): one per private value."""

    player: int
    observation: str
    depth: int
    private_labels: tuple[str, ...]
    action_labels: tuple[str, ...]


class Layout:
    """The game's tree plus its infoset numbering; shared by solver, evaluator and files."""

    def __init__(self, game: Game):
        self.game = game
        tree = self.tree = game.tree
        if tree.n_nodes < 2:
            raise ValueError(f"{game.name}: the tree has no decision")
        groups: dict[tuple[int, str], InfosetGroup] = {}
        node_group: dict[int, tuple[int, str]] = {}
        group_history: dict[tuple[int, str], tuple[str, ...]] = {}
        for node in np.flatnonzero(tree.player != TERMINAL):
            history, player = tree.histories[node], int(tree.player[node])
            key = (player, game.observation(history, player))
            group = InfosetGroup(player, key[1], int(tree.depth[node]),
                                 tuple(game.private_labels(history, player)), tree.action_labels[node])
            if key in groups and groups[key] != group:
                raise ValueError(f"{game.name}: nodes sharing observation {key} differ: {group} vs {groups[key]}")
            groups[key] = group
            node_group[int(node)] = key
            group_history.setdefault(key, history)
        ordered = sorted(groups, key=lambda k: (k[0], groups[k].depth))  # stable: BFS within
        offset, start = {}, 0
        for key in ordered:
            offset[key] = start
            start += len(groups[key].private_labels)
        self.groups = [groups[k] for k in ordered]
        self.n_infosets = start
        self.max_actions = tree.max_actions
        self.node_offset = np.full(tree.n_nodes, -1, dtype=np.int64)  # first infoset of the node's group
        for node, key in node_group.items():
            self.node_offset[node] = offset[key]
        sizes = [len(g.private_labels) for g in self.groups]
        self.infoset_player = np.repeat([g.player for g in self.groups], sizes).astype(np.int64)
        self.infoset_depth = np.repeat([g.depth for g in self.groups], sizes).astype(np.int64)
        self.n_actions = np.repeat([len(g.action_labels) for g in self.groups], sizes).astype(np.int64)
        self.action_mask = np.arange(self.max_actions)[None, :] < self.n_actions[:, None]  # (n_is, A)
        self.variant_mask = self._variant_mask([group_history[k] for k in ordered], sizes)  # (B, n_is, A)
        self.player_rows = tuple(
            slice(int(np.searchsorted(self.infoset_player, p)),
                  int(np.searchsorted(self.infoset_player, p, side="right"))) for p in (0, 1))

    def _variant_mask(self, histories: list, sizes: list[int]) -> np.ndarray:
        """(B, n_is, A) bool: the actions each variant may take (``Game.variant_legal``); the legal
        actions of every infoset where the game's variants all take the same ones."""
        b = len(self.game.variant_labels)
        legal = [self.game.variant_legal(h) for h in histories]
        if all(x is None for x in legal):
            return np.broadcast_to(self.action_mask, (b, *self.action_mask.shape))
        mask = np.zeros((b, self.n_infosets, self.max_actions), dtype=bool)
        start = 0
        for group_legal, size, group in zip(legal, sizes, self.groups):
            n = len(group.action_labels)
            mask[:, start:start + size, :n] = True if group_legal is None else np.asarray(group_legal)[:, None, :]
            start += size
        return mask

    @cached_property
    def labels(self) -> tuple[str, ...]:
        return tuple(f"{priv}|{g.observation}" for g in self.groups for priv in g.private_labels)

    @cached_property
    def action_labels(self) -> tuple[tuple[str, ...], ...]:
        return tuple(g.action_labels for g in self.groups for _ in g.private_labels)

    @cached_property
    def label_index(self) -> dict[str, int]:
        index = {label: i for i, label in enumerate(self.labels)}
        if len(index) != len(self.labels):
            raise ValueError(f"{self.game.name}: infoset labels are not unique")
        return index

    def rows_at(self, player: int, depth: int) -> slice:
        """The contiguous infoset rows of ``player`` at tree depth ``depth``."""
        rows = self.player_rows[player]
        depths = self.infoset_depth[rows]
        lo = rows.start + int(np.searchsorted(depths, depth))
        hi = rows.start + int(np.searchsorted(depths, depth, side="right"))
        return slice(lo, hi)

    @property
    def n_variants(self) -> int:
        return len(self.game.variant_labels)

    @cached_property
    def deals(self) -> tuple[np.ndarray, np.ndarray]:
        """All deals of the game and their probabilities (built once)."""
        cards, prob = self.game.deals()
        return np.ascontiguousarray(cards, dtype=np.int64), np.asarray(prob, dtype=np.float64)

    def shard_bounds(self, n_shards: int) -> list[tuple[int, int]]:
        """[start, stop) of each shard: the deals cut into ``n_shards`` contiguous slices."""
        n = self.n_deals
        edges = [n * k // n_shards for k in range(n_shards + 1)]
        return list(zip(edges[:-1], edges[1:]))

    @property
    def n_deals(self) -> int:
        return self.game.n_deals

    def uniform_strategy(self) -> np.ndarray:
        """(n_variants, n_infosets, max_actions): uniform over each variant's legal actions."""
        mask = self.variant_mask
        return mask / mask.sum(axis=-1, keepdims=True)

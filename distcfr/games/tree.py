"""The public action tree of a game, built once, in breadth-first order."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TERMINAL = -1


@dataclass(frozen=True)
class Tree:
    """Nodes in breadth-first order; the children of a node are contiguous, in action order.

    All arrays have one entry per node (n_nodes,), int64.
    """

    histories: tuple[tuple[str, ...], ...]  # action codes from the root
    action_labels: tuple[tuple[str, ...], ...]  # labels of the legal actions; () at terminals
    player: np.ndarray  # acting player 0/1, TERMINAL (-1) at terminals
    parent: np.ndarray  # -1 at the root
    action: np.ndarray  # index of the action leading here among the parent's, -1 at the root
    first_child: np.ndarray  # index of the first child, -1 at terminals
    n_children: np.ndarray  # 0 at terminals
    depth: np.ndarray
    level_start: np.ndarray  # (n_levels + 1,): nodes of depth k are level_start[k]:level_start[k+1]

    @property
    def n_nodes(self) -> int:
        return len(self.histories)

    @property
    def n_levels(self) -> int:
        return len(self.level_start) - 1

    @property
    def max_actions(self) -> int:
        return int(self.n_children.max())

    def label(self, node: int) -> str:
        return "".join(self.histories[node])


def build_tree(game) -> Tree:
    """Expand ``game.actions`` / ``game.player`` from the empty history, breadth first."""
    histories: list[tuple[str, ...]] = [()]
    labels, player, parent, action, first_child, n_children, depth = [], [], [-1], [-1], [], [], [0]
    i = 0
    while i < len(histories):
        history = histories[i]
        legal = list(game.actions(history))
        labels.append(tuple(label for _, label in legal))
        if legal:
            codes = [code for code, _ in legal]
            if len(set(codes)) != len(codes):
                raise ValueError(f"{game.name}: repeated action codes at {history}")
            player.append(game.player(history))
            first_child.append(len(histories))
            for a, code in enumerate(codes):
                histories.append(history + (code,))
                parent.append(i)
                action.append(a)
                depth.append(depth[i] + 1)
        else:
            player.append(TERMINAL)
            first_child.append(-1)
        n_children.append(len(legal))
        i += 1
    depth_arr = np.asarray(depth, dtype=np.int64)
    level_start = np.searchsorted(depth_arr, np.arange(depth_arr.max() + 2))
    return Tree(
        histories=tuple(histories),
        action_labels=tuple(labels),
        player=np.asarray(player, dtype=np.int64),
        parent=np.asarray(parent, dtype=np.int64),
        action=np.asarray(action, dtype=np.int64),
        first_child=np.asarray(first_child, dtype=np.int64),
        n_children=np.asarray(n_children, dtype=np.int64),
        depth=depth_arr,
        level_start=level_start.astype(np.int64),
    )

"""Walks of the category tree over a plain parent map (node -> parent, None at a root): the one
place that goes up to a root or down a subtree. Pure; each caller reads the map in one query."""

from __future__ import annotations

from collections.abc import Hashable, Mapping


def children_of[Node: Hashable](
    parent: Mapping[Node, Node | None],
) -> dict[Node | None, list[Node]]:
    """Parent -> its children, in the map's order."""
    children: dict[Node | None, list[Node]] = {}
    for node, up in parent.items():
        children.setdefault(up, []).append(node)
    return children


def subtree[Node: Hashable](children: Mapping[Node | None, list[Node]], node: Node) -> list[Node]:
    """`node` and all its descendants."""
    nodes, stack = [], [node]
    while stack:
        current = stack.pop()
        nodes.append(current)
        stack.extend(children.get(current, ()))
    return nodes


def root_of[Node: Hashable](parent: Mapping[Node, Node | None], node: Node) -> Node:
    """The top-level ancestor of `node` (itself at a root, or when the map does not know it)."""
    while parent.get(node) is not None:
        node = parent[node]
    return node

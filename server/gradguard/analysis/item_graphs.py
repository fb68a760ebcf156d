"""Each item of a comprehension has a graph of its own.

`[F.dropout(model.embed(x), 0.5) for _ in range(k)]` evaluates its element once per item:
every item's history runs through graph nodes made for it alone. The interpreter evaluates
the element once and gives every item that value, so the nodes made while evaluating it
would look shared: a backward of one item would seem to free the graph of the next
(`for out in outputs: out.mean().backward()` runs fine under torch 2.13.0), and an in-place
change of one item would seem to change what another item's graph saved.

So an item keeps only the nodes made outside the element expression, which every item does
share (`h = enc(x); [head(h) for head in heads]`: each item runs through `enc`'s graph,
which a first item's backward frees for the second: checked against torch 2.13.0). The
nodes made inside the element stay on the list itself (`Value.graph` of the sequence, and
`Value.items_saved` for those that saved the item itself): what takes the whole list
(`torch.stack(outs)`, `torch.cat`) runs through every item's graph, a slice through no
certain one. A literal index (`outs[1]`) of a list no code of the file may change reads
one item: it gets one node per such node and index (`item_at`), the same at every read of
that index, so `outs[0]` backpropagated twice, or changed in place and then
backpropagated, is still seen. A node is made inside the element when its expression lies
in the element's syntax (operations, calls of functions and modules of the file all name
the expression or call that made them); a node named elsewhere is shared, as before.
Leaving a node out of an item only makes the analysis know less, never more.
"""

from __future__ import annotations

import ast
import threading
import weakref
from dataclasses import dataclass

from gradguard.analysis.graph import SavedNode
from gradguard.analysis.values import Kind, Value, ValueChanges, evolve

# How deep into tuples and lists an item's parts are looked at (`[(model(x), y) for ...]`).
_DEPTH = 3


@dataclass(frozen=True)
class OwnItems:
    """A comprehension's item without the nodes each evaluation of its element makes
    afresh (`item`); those nodes' graph part (`own`), which the whole list runs through;
    and those that saved the item itself (`saved`: not of its parts)."""

    item: Value
    own: frozenset[SavedNode]
    saved: frozenset[SavedNode]


def items_list(item: Value, element: ast.expr) -> Value:
    """The list `[element for ...]` builds, whose every item is at most `item`: each item
    without the nodes made inside `element`, the list running through them all."""
    own = own_items(item, element)
    return Value(
        kind=Kind.SEQUENCE,
        items=own.item.with_origin(None),
        graph=own.own,
        items_saved=own.saved,
    )


def own_items(item: Value, element: ast.expr) -> OwnItems:
    """`item`, what a comprehension's `element` evaluated to, as every item sees it: the
    graph nodes and saved-tensor nodes made inside `element` left out (see the module)."""
    if not _has_nodes(item, _DEPTH):
        return OwnItems(item, frozenset(), frozenset())
    inside = frozenset(id(node) for node in ast.walk(element))
    own: set[SavedNode] = set()
    stripped = _stripped(item, inside, own, _DEPTH)
    saved = frozenset(n for n in item.saved_in if id(n.node) in inside)
    return OwnItems(stripped, frozenset(own), saved)


def item_at(listed: Value, position: int) -> Value | None:
    """`listed[position]` (a literal index) of a list whose items are each computed afresh
    (`items_list`): the item, with one node per node its element made, the same for every
    read of this position and another for every other position. None when the list has no
    such nodes, or its items are not single values."""
    items = listed.items
    if items is None or not (listed.graph or listed.items_saved):
        return None
    if items.elements is not None or items.items is not None:
        return None
    graph = frozenset(_at(n, position) for n in listed.graph)
    saved = frozenset(_at(n, position) for n in listed.items_saved)
    return evolve(items, graph=items.graph | graph, saved_in=items.saved_in | saved)


# The node standing for a list's node at one position: one per node and position, for as
# long as the node lives (a node is created afresh by every evaluation of its expression).
_POSITIONS: weakref.WeakKeyDictionary[SavedNode, dict[int, SavedNode]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _at(node: SavedNode, position: int) -> SavedNode:
    with _LOCK:
        positions = _POSITIONS.get(node)
        if positions is None:
            positions = _POSITIONS[node] = {}
        found = positions.get(position)
        if found is None:
            found = positions[position] = SavedNode(node.node, node.saves, node.given)
        return found


def _has_nodes(value: Value, depth: int) -> bool:
    if value.graph or value.saved_in:
        return True
    if depth <= 0:
        return False
    parts = [*(value.elements or ()), *([value.items] if value.items is not None else [])]
    return any(_has_nodes(part, depth - 1) for part in parts)


def _stripped(value: Value, inside: frozenset[int], own: set[SavedNode], depth: int) -> Value:
    made = frozenset(n for n in value.graph if id(n.node) in inside)
    saved = frozenset(n for n in value.saved_in if id(n.node) in inside)
    own |= made
    changes: ValueChanges = {}
    if made:
        changes["graph"] = value.graph - made
    if saved:
        changes["saved_in"] = value.saved_in - saved
    if depth > 0 and value.elements is not None:
        parts = tuple(_stripped(e, inside, own, depth - 1) for e in value.elements)
        if any(a is not b for a, b in zip(parts, value.elements, strict=True)):
            changes["elements"] = parts
    if depth > 0 and value.items is not None:
        items = _stripped(value.items, inside, own, depth - 1)
        if items is not value.items:
            changes["items"] = items
    return evolve(value, **changes) if changes else value

"""The walk of a module after one function's code changed, from the walk before.

`walk.module_nodes` / `module_parents` of a 5,000-line module cost several milliseconds, and
an edit inside one function (`gradguard.analysis.incremental`) changes only that function's
part of them. The walk is breadth-first, so a function's descendants at each depth below it
form one run of consecutive nodes of the walk: `patched_walk` swaps the old runs for the new
ones. It gives up (None) when the function's depth changed (a run would appear or vanish at
a place the old walk does not show) or a run is not where it should be.

The index of the walk by node type (`walk.module_nodes_of`) follows the same runs
(`patched_index`): positions before the first run stay, those after a run move by what the
runs before them added or removed, and the new runs' nodes are indexed alone, so an edit
that keeps the number of nodes (a name typed longer) costs a few slices, not a walk.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from itertools import chain

from gradguard.analysis.walk import children

# Node types the parser shares one instance of across the tree (`ast.Load()`, `ast.Add()`):
# they are never a run's anchor, and their parent is the last one in walk order.
_SHARED = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)

Walk = tuple[tuple[ast.AST, ...], dict[int, ast.AST]]
# One replaced run: where it started in the old walk, how many nodes it had, how many now.
Run = tuple[int, int, int]
# Positions of each node type in a walk (see `walk._type_index`).
TypeIndex = dict[type, list[int]]


def patched_walk(old: Walk, function: ast.AST, before: ast.AST) -> Walk | None:
    """The module walk (nodes, parents) with `function`'s descendants as they are now, from
    the walk `old` made when they were those of `before` (a copy of the function then)."""
    patched = patched_walk_runs(old, function, before)
    return None if patched is None else patched[0]


def patched_walk_runs(
    old: Walk, function: ast.AST, before: ast.AST
) -> tuple[Walk, list[Run]] | None:
    """`patched_walk`, and the runs it replaced, in walk order (for `patched_index`)."""
    old_levels, new_levels = _levels(before), _levels(function)
    if len(old_levels) != len(new_levels):
        return None
    runs: list[Run] = []
    nodes, parents = old
    pieces: list[tuple[ast.AST, ...]] = []
    starts: list[int] = []
    at = 0
    for depth, (old_run, new_run) in enumerate(zip(old_levels, new_levels, strict=True)):
        if _same_shared_run(old_run, new_run):
            # The deepest run, of shared nodes only, unchanged: the walk keeps it where it is.
            continue
        start = _run_start(nodes, old_run, at)
        if start is None and depth >= 2:
            start = _counted_start(nodes, old_levels, starts, depth)
        if start is None or start < at or nodes[start : start + len(old_run)] != tuple(old_run):
            return None
        starts.append(start)
        runs.append((start, len(old_run), len(new_run)))
        pieces += [nodes[at:start], tuple(new_run)]
        at = start + len(old_run)
    pieces.append(nodes[at:])
    patched = tuple(chain.from_iterable(pieces))
    parents_now = _patched_parents(parents, patched, (function, new_levels), (before, old_levels))
    return (patched, parents_now), runs


def patched_index(old: TypeIndex, nodes: tuple[ast.AST, ...], runs: list[Run]) -> TypeIndex:
    """The positions of each node type in `nodes` (a walk `patched_walk_runs` made), from
    `old`, those in the walk before, and the `runs` it replaced."""
    pieces: list[tuple[int, int | None, int]] = []  # old positions [lo, hi) kept, their shift
    fresh: list[TypeIndex] = []  # the positions of each run's nodes now, after each piece
    at = shift = 0
    for start, old_length, new_length in runs:
        pieces.append((at, start, shift))
        begin = start + shift
        indexed: TypeIndex = {}
        for position in range(begin, begin + new_length):
            indexed.setdefault(type(nodes[position]), []).append(position)
        fresh.append(indexed)
        shift += new_length - old_length
        at = start + old_length
    pieces.append((at, None, shift))
    index: TypeIndex = {}
    for kind in {*old, *chain.from_iterable(fresh)}:
        positions = old.get(kind, [])
        found: list[int] = []
        for number, (lo, hi, moved) in enumerate(pieces):
            first = bisect_left(positions, lo)
            last = len(positions) if hi is None else bisect_left(positions, hi, first)
            if first < last:
                kept = positions[first:last]
                found += kept if moved == 0 else [p + moved for p in kept]
            if number < len(fresh):
                found += fresh[number].get(kind, ())
        if found:
            index[kind] = found
    return index


def _levels(function: ast.AST) -> list[list[ast.AST]]:
    """The descendants of `function` by depth below it, each depth in walk order."""
    levels: list[list[ast.AST]] = []
    level = children(function)
    while level:
        levels.append(level)
        level = [child for node in level for child in children(node)]
    return levels


def _same_shared_run(old_run: list[ast.AST], new_run: list[ast.AST]) -> bool:
    """The same nodes the parser shares (`ast.Load()`...), in the same order: nodes without
    children, so this is the deepest run of the function, and nothing of it changed."""
    return len(old_run) == len(new_run) and all(
        a is b and isinstance(a, _SHARED) for a, b in zip(old_run, new_run, strict=True)
    )


def _run_start(nodes: tuple[ast.AST, ...], run: list[ast.AST], at: int) -> int | None:
    """Where `run` starts in `nodes` (at or after `at`), found by a node of it the parser
    does not share (None: it has none, or it is not there)."""
    offset = next((i for i, node in enumerate(run) if not isinstance(node, _SHARED)), None)
    if offset is None:
        return None
    try:
        return nodes.index(run[offset], at) - offset
    except ValueError:
        return None


def _counted_start(
    nodes: tuple[ast.AST, ...], levels: list[list[ast.AST]], starts: list[int], depth: int
) -> int | None:
    """Where the run of `levels[depth]` starts, when it holds shared nodes only (the
    deepest run, under names and operators): the walk appends a node's children when it
    reaches the node, so the first child of the run's first parent comes after the
    children of every node between the first parent of the run above it and that parent."""
    above, parents = levels[depth - 2], levels[depth - 1]
    first_above = next((i for i, node in enumerate(above) if children(node)), None)
    first_parent = next((i for i, node in enumerate(parents) if children(node)), None)
    if first_above is None or first_parent is None:
        return None
    begin, end = starts[depth - 2] + first_above, starts[depth - 1] + first_parent
    return starts[depth - 1] + sum(len(children(node)) for node in nodes[begin:end])


def _patched_parents(
    parents: dict[int, ast.AST],
    nodes: tuple[ast.AST, ...],
    new: tuple[ast.AST, list[list[ast.AST]]],
    old: tuple[ast.AST, list[list[ast.AST]]],
) -> dict[int, ast.AST]:
    """`parents` with the old descendants of the function (`old`: the copy of it before,
    and its descendants by depth) replaced by the new ones (`new`)."""
    (function, new_levels), (before, old_levels) = new, old
    patched = dict(parents)
    shared: dict[int, ast.AST] = {}
    for parent in (before, *chain.from_iterable(old_levels)):
        for child in children(parent):
            if isinstance(child, _SHARED):
                shared[id(child)] = child
            else:
                patched.pop(id(child), None)
    for parent in (function, *chain.from_iterable(new_levels)):
        for child in children(parent):
            if isinstance(child, _SHARED):
                shared[id(child)] = child
            else:
                patched[id(child)] = parent
    for key, node in shared.items():
        # The last node of the walk holding it (what `module_parents` keeps).
        kinds = _HOLDERS.get(type(node).__mro__[1], ())
        holder = next(
            (
                n
                for n in reversed(nodes)
                if isinstance(n, kinds) and any(c is node for c in children(n))
            ),
            None,
        )
        if holder is None:
            patched.pop(key, None)
        else:
            patched[key] = holder
    return patched


# The node types that hold each kind of shared node.
_HOLDERS: dict[type, tuple[type, ...]] = {
    ast.expr_context: (ast.Name, ast.Attribute, ast.Subscript, ast.Starred, ast.List, ast.Tuple),
    ast.operator: (ast.BinOp, ast.AugAssign),
    ast.unaryop: (ast.UnaryOp,),
    ast.boolop: (ast.BoolOp,),
    ast.cmpop: (ast.Compare,),
}

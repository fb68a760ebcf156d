"""Backward calls that certainly run again, on a loop's next iteration, through graph nodes
built before the loop.

A loop body is the same code on every iteration, but not the same graph: what the body
computes is computed anew, what it reads from before the loop is not. So when
`loss.backward()` runs on every iteration of a loop that certainly runs at least twice, its
second run goes through every node of its graph that was built before the loop (`h =
model.embed(x)` above the loop, `loss = criterion(model(h), y)` in it): the same node the
first run went through. Whatever happened to that node's saved tensors after the first run
(freed by a backward without `retain_graph`, changed in place by an `optimizer.step()`
later in the body) is there when the second run needs them.

Certain only when:

* the call runs on every iteration of the loop (`BackwardCall.every_iteration`: no `if`,
  `except` or inner loop between the loop and the call);
* the loop certainly runs its body at least twice each time it is reached
  (`loop_entry.fewest_trips`: `for n in range(EPOCHS)` with `EPOCHS = 3`), and nothing in
  the body may leave an iteration or the loop early (`break`, `continue`, `return`,
  `raise`, `yield`): the first and the second iteration both reach the call;
* the node is one the call's graph certainly goes through on every iteration (the
  recorded pass joins the loop's entry with its back edge, so a name the body re-binds
  keeps only the nodes common to both), and its expression lies outside the loop (a node
  of the body is a new node on each iteration).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gradguard.analysis.events import LoopTrips
from gradguard.analysis.graph import SavedNode
from gradguard.analysis.loop_entry import fewest_trips
from gradguard.analysis.model import BackwardCall, LoopNode

# Statements that may end an iteration (or the loop, or the function) before its end.
_EARLY_EXITS = (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Break, ast.Continue)
_LOOP_EXITS = (ast.Break, ast.Continue)


@dataclass(frozen=True)
class RepeatedBackward:
    """`call` runs again on the next iteration of `loop` through `kept`: nodes of its graph
    built before the loop, which its run on the previous iteration went through too."""

    call: BackwardCall
    loop: LoopNode
    kept: frozenset[SavedNode]


def repeated_backwards(
    calls: Iterable[BackwardCall], trips: Iterable[LoopTrips]
) -> Iterator[RepeatedBackward]:
    """Each backward call of `calls` that certainly runs again through nodes built before
    a loop it runs in on every iteration, one per such loop (innermost first)."""
    trip_events = list(trips)
    for call in calls:
        for loop in sorted(call.every_iteration, key=_depth, reverse=True):
            if fewest_trips(trip_events, loop) < 2 or _may_leave_early(loop):
                continue
            inside = {id(n) for n in ast.walk(loop)}
            kept = frozenset(n for n in call.value.graph if id(n.node) not in inside)
            if kept:
                yield RepeatedBackward(call, loop, kept)


def _depth(loop: LoopNode) -> tuple[int, int]:
    """Inner loops start later (or on the same line, further right) than the loops around
    them."""
    return loop.lineno, loop.col_offset


def _may_leave_early(loop: LoopNode) -> bool:
    """Whether the body of `loop` holds a statement that may end an iteration, the loop or
    the function before the body's end (in the body itself, not in a function it
    defines; a `break`/`continue` of an inner loop ends only that loop)."""
    return any(isinstance(node, _EARLY_EXITS) for node in _own(loop.body, True))


def _own(body: list[ast.stmt], loop_level: bool) -> Iterator[ast.AST]:
    """The nodes of `body`, not entering functions, classes or lambdas; inside an inner
    loop, `break` and `continue` belong to that loop and are left out."""
    stack: list[tuple[ast.AST, bool]] = [(stmt, loop_level) for stmt in body]
    while stack:
        node, level = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, _LOOP_EXITS) and not level:
            continue
        yield node
        inner = level and not isinstance(node, ast.For | ast.AsyncFor | ast.While)
        for child in ast.iter_child_nodes(node):
            stack.append((child, inner))

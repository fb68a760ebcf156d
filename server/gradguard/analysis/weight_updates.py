"""Whether a loop may change tensors in place between two of its backward passes.

A graph kept with `retain_graph=True` fails on a later backward only when a tensor it saved
has changed in place since: an optimizer's `step()` (its updates are in-place ops under
no_grad), `w -= lr * w.grad` under no_grad, `w.add_(...)`, `w.copy_(...)`. A loop that
never does any of that (a visualisation that backpropagates through a growing stack of
layers, each pass with `retain_graph=True`) raises nothing.

`may_update_in_place` answers syntactically, over the loop's own code and the code of the
file's functions it calls by name (to a small depth): any `.step(...)` call, any augmented
assignment, any call of an in-place method (a name ending in `_`), except on a `.grad` or
a `.data` (`w.grad.zero_()`, `w.data -= ...`: neither bumps a saved tensor's version).
A call of anything the file does not define may do anything, but what a library call does
to its own arguments in place is rare; only the forms above count.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import callee_name
from gradguard.analysis.walk import own_nodes

# How deep calls of the file's functions are followed.
_DEPTH = 3
# Attributes whose in-place changes no saved tensor's version sees.
_UNVERSIONED = frozenset({"grad", "data"})


def may_update_in_place(
    loop: ast.For | ast.AsyncFor | ast.While,
    functions: Mapping[str, Sequence[FunctionNode]],
) -> bool:
    """Whether running `loop`'s body may change a tensor in place (see the module's docs);
    `functions`: the file's functions by name."""
    return _updates(loop.body, functions, _DEPTH, set())


def _updates(
    body: list[ast.stmt],
    functions: Mapping[str, Sequence[FunctionNode]],
    depth: int,
    seen: set[int],
) -> bool:
    for node in own_nodes(body):
        if isinstance(node, ast.AugAssign) and not _unversioned(node.target):
            return True
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "step":
                return True
            in_place = func.attr.endswith("_") and not func.attr.startswith("_")
            if in_place and not _unversioned(func.value):
                return True
        name = callee_name(func)
        if name is None or depth == 0:
            continue
        for function in functions.get(name, ()):
            if id(function) in seen:
                continue
            seen.add(id(function))
            if _updates(function.body, functions, depth - 1, seen):
                return True
    return False


def _unversioned(target: ast.expr) -> bool:
    """`w.grad`, `w.data` (or anything under them, `w.grad[0]`)."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Attribute) and target.attr in _UNVERSIONED

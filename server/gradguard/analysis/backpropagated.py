"""Facts a function's own code proves about its names, whatever produced their values.

A value on which `.backward()` is called is a tensor with history whenever that call runs
(otherwise the call itself raises), so `loss = criterion(model(x), y)` is tracked even when
`model` and `criterion` are parameters nobody can see. Only names bound exactly once in the
function, by a plain assignment (`loss = ...`, or one plain name of `loss, parts = ...`),
qualify: then the value `backward()` sees is that one.
A name whose `requires_grad` the function forces (`loss.requires_grad = True`,
`loss.requires_grad_()`) never qualifies: the forced leaf lets backward run without history.
"""

from __future__ import annotations

import ast
from collections import Counter

from gradguard.analysis.names import attribute_root
from gradguard.analysis.node_cache import cached_by_node


def backpropagated_names(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module,
) -> frozenset[str]:
    """Names in the body of `function` (not in nested functions or classes) bound once by
    `name = ...` and receiving a `name.backward(...)` call (cached per node). An attribute of
    such a name counts too (`output.loss.backward()` with `output = model(...)` bound once):
    it is listed as `output.loss` when nothing in the function stores into that attribute."""
    return _cached(function)


def _backpropagated_names(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module,
) -> frozenset[str]:
    body = function.body
    bindings: Counter[str] = Counter()
    plain: set[str] = set()
    backward: set[str] = set()
    stored_attributes: set[str] = set()
    # `loss.requires_grad = True` / `loss.requires_grad_()`: backward then runs on a leaf
    # even when `loss` has no history, so the backward call proves nothing about it.
    forced: set[str | None] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            if not isinstance(node, ast.Lambda):
                bindings[node.name] += 1
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bindings[node.id] += 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                plain.add(target.id)
            elif isinstance(target, ast.Tuple | ast.List):
                # `loss, parts = compute_loss(...)`: each plain name of the unpacking.
                plain.update(e.id for e in target.elts if isinstance(e, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bindings[(alias.asname or alias.name).split(".")[0]] += 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                bindings[name] += 2  # bound elsewhere too: never "once"
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            if node.attr == "requires_grad":
                forced.add(attribute_root(node.value))
            if isinstance(node.value, ast.Name):
                stored_attributes.add(f"{node.value.id}.{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward"
        ):
            receiver = node.func.value
            if isinstance(receiver, ast.Name):
                backward.add(receiver.id)
            elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
                backward.add(f"{receiver.value.id}.{receiver.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
        ):
            forced.add(attribute_root(node.func.value))
        if isinstance(node, ast.comprehension):
            # The loop variable of a comprehension lives in the comprehension's own scope
            # (`[loss.item() for loss in losses]` leaves the function's `loss` alone).
            stack.extend([node.iter, *node.ifs])
            continue
        stack.extend(ast.iter_child_nodes(node))
    once = {name for name in plain if bindings[name] == 1 and name not in forced}
    return frozenset(
        key for key in backward if key.split(".", 1)[0] in once and key not in stored_attributes
    )


_cached = cached_by_node(_backpropagated_names)

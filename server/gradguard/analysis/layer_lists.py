"""The layers of `nn.Sequential(*layers)` written out in a list literal of the same scope.

Model builders often list their layers first and unpack them into the container:

    layers = [nn.Linear(d, h), nn.ReLU(), nn.Dropout(p, inplace=True), nn.Linear(h, k)]
    self.main = nn.Sequential(*layers)

The container then runs exactly those layers in that order, as if they were written as its
arguments, provided the list is not changed or shared between the assignment and the call:
the name is bound once, by that assignment, and read only by the unpacking. Anything else
(an `append`, a `+=`, a second binding, the list passed elsewhere) gives no answer.
"""

from __future__ import annotations

import ast

from gradguard.analysis.walk import module_nodes, walk


def literal_elements(scope: ast.AST, call: ast.Call) -> list[ast.expr] | None:
    """The element expressions of the list or tuple literal `call`'s only argument unpacks
    (`nn.Sequential(*layers)`), when `scope` binds that name once to the literal and reads
    it nowhere else; None otherwise."""
    if len(call.args) != 1 or call.keywords:
        return None
    starred = call.args[0]
    if not isinstance(starred, ast.Starred) or not isinstance(starred.value, ast.Name):
        return None
    name = starred.value.id
    literal: ast.List | ast.Tuple | None = None
    for node in _nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and node is not starred.value:
            if literal is not None or not isinstance(node.ctx, ast.Store):
                return None
            literal = _assigned_literal(scope, node)
            if literal is None:
                return None
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return None
    if literal is None or any(isinstance(e, ast.Starred) for e in literal.elts):
        return None
    return list(literal.elts)


def _nodes(scope: ast.AST) -> list[ast.AST]:
    """Every node under `scope` (a module: its cached walk)."""
    return list(module_nodes(scope)) if isinstance(scope, ast.Module) else walk(scope)


def _assigned_literal(scope: ast.AST, target: ast.Name) -> ast.List | ast.Tuple | None:
    """The literal of the plain assignment `target = [...]` in `scope`, if it is one."""
    for node in _nodes(scope):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and node.targets[0] is target
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return node.value
    return None

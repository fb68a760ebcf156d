"""Tensors a loop changes through a list of names: `for p in params: p.requires_grad = True`.

Hand-made parameters are often gathered in a list and switched on in a loop::

    W1 = torch.randn(30, 200)
    b1 = torch.randn(200)
    parameters = [W1, b1]
    for p in parameters:
        p.requires_grad = True

The loop variable is each listed tensor in turn, so the request changes `W1` and `b1`
themselves: after the loop they require grad. The names are found syntactically, when the
loop iterates a list or tuple display of names, or a name bound to such displays in the
scope (`parameters = [W1, b1]`; exactly those names when it is the name's only binding).
What the loop does is told by its body: `grad_changes` says whether it may change the loop
variable's grad state at all (then the names that may be listed no longer have the state
they had), `certain_request` whether every element certainly gets `requires_grad = True`
(a request first thing in the body).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradguard.analysis.bindings import name_bindings
from gradguard.analysis.walk import own_nodes

# Tensor attributes and methods that change a tensor's grad state in place.
_GRAD_ATTRIBUTES = frozenset({"requires_grad", "data"})
_GRAD_METHODS = frozenset({"requires_grad_", "detach_"})


@dataclass(frozen=True)
class Listed:
    """The names a loop may bind its target to: `exact` when they are certainly its
    elements (a display, or the one display the name is bound to), else the names of every
    display the name is bound to anywhere in the scope (some of them, or others, may be)."""

    names: tuple[str, ...]
    exact: bool


def listed_names(iterated: ast.expr, scope_body: list[ast.stmt]) -> Listed | None:
    """The names a loop over `iterated` binds its target to in turn: the names of a list or
    tuple display, or of the displays a name is bound to in the scope whose statements are
    `scope_body` (see `Listed`); None when no name is known to be among them."""
    if isinstance(iterated, ast.List | ast.Tuple):
        names = _display_names(iterated)
        return Listed(tuple(names), exact=True) if names is not None else None
    if not isinstance(iterated, ast.Name):
        return None
    displays, bindings = _displays(iterated.id, scope_body)
    found: list[str] = []
    for display in displays:
        names = _display_names(display)
        found += [n for n in (names or _names_in(display)) if n not in found]
    if not found:
        return None
    exact = bindings == 1 and len(displays) == 1 and _display_names(displays[0]) is not None
    return Listed(tuple(found), exact)


def _display_names(display: ast.expr) -> list[str] | None:
    """The names of a display made of names only (`[W1, b1]`); None otherwise."""
    if not isinstance(display, ast.List | ast.Tuple):
        return None
    names = [element.id for element in display.elts if isinstance(element, ast.Name)]
    return names if len(names) == len(display.elts) else None


def _names_in(display: ast.expr) -> list[str]:
    """The names a display holds as elements, among others (`[C] + [...]`)."""
    found: list[str] = []
    for node in ast.walk(display):
        if isinstance(node, ast.List | ast.Tuple):
            found += [e.id for e in node.elts if isinstance(e, ast.Name)]
    return found


def _displays(name: str, scope_body: list[ast.stmt]) -> tuple[list[ast.expr], int]:
    """The values `name = <value>` binds that hold a list or tuple display (`[W1, b1]`,
    `[C] + [p for p in ...]`), and how many times the scope binds the name (see
    `bindings.name_bindings`)."""
    assignments, count = name_bindings(name, scope_body)
    found = [
        a.value
        for a in assignments
        if any(isinstance(n, ast.List | ast.Tuple) for n in ast.walk(a.value))
    ]
    return found, count


def grad_changes(body: list[ast.stmt], name: str) -> bool:
    """Whether the loop body may change the grad state of what `name` holds in place:
    `name.requires_grad = ...`, `name.data = ...`, `name.requires_grad_(...)`,
    `name.detach_()`."""
    for node in own_nodes(body):
        if isinstance(node, ast.Assign):  # (`name.data += step` changes values, not grad)
            if any(_attribute_of(t, name, _GRAD_ATTRIBUTES) for t in node.targets):
                return True
        elif isinstance(node, ast.Call) and _attribute_of(node.func, name, _GRAD_METHODS):
            return True
    return False


def certain_request(body: list[ast.stmt], name: str) -> bool:
    """Whether the body's first statement is `name.requires_grad = True` or
    `name.requires_grad_()` / `requires_grad_(True)`: every element gets it."""
    return bool(body) and request_of(body[0], name) is not None


def request_of(body_stmt: ast.stmt, name: str) -> tuple[ast.AST, ast.expr] | None:
    """(the request, its receiver) when `body_stmt` is `name.requires_grad_()` (with no
    argument or a literal True) or `name.requires_grad = True`."""
    if isinstance(body_stmt, ast.Expr) and isinstance(body_stmt.value, ast.Call):
        call = body_stmt.value
        func = call.func
        flag_true = not call.keywords and (
            not call.args
            or (
                len(call.args) == 1
                and isinstance(call.args[0], ast.Constant)
                and call.args[0].value is True
            )
        )
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "requires_grad_"
            and isinstance(func.value, ast.Name)
            and func.value.id == name
            and flag_true
        ):
            return call, func.value
        return None
    if isinstance(body_stmt, ast.Assign) and len(body_stmt.targets) == 1:
        target = body_stmt.targets[0]
        value = body_stmt.value
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(target.value, ast.Name)
            and target.value.id == name
            and isinstance(value, ast.Constant)
            and value.value is True
        ):
            return body_stmt, target.value
    return None


def _attribute_of(node: ast.AST, name: str, attributes: frozenset[str]) -> bool:
    """`name.<one of attributes>`."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in attributes
        and isinstance(node.value, ast.Name)
        and node.value.id == name
    )

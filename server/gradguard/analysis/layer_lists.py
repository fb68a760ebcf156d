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
from collections.abc import Callable

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


# The first layer of a list grown before it is unpacked
#
# `rep = []`, a loop of `rep += [relu, conv, bn]`, `rep = rep[1:]`, `rep.insert(0, relu)`,
# `rep.append(pool)`, then `nn.Sequential(*rep)`: whatever the list holds in between, the
# container's first layer is `relu`. The statements before the call are followed in order,
# keeping what is certain of the list's head: empty, a known first element, or unknown.
# Appending (`append`, `+=`, `extend`) keeps a known head and gives an empty list one;
# `insert(0, x)` makes `x` the head whatever the list held. A branch keeps a head only when
# every path gives the same one (or the test is decided); a loop may run any number of times.
# Any other use of the list before the call (passed elsewhere, aliased, changed by another
# method or item assignment, read in a nested function) gives no answer.

_EMPTY = "empty"
_UNKNOWN = "unknown"
Head = ast.expr | str  # a first element, `_EMPTY` or `_UNKNOWN`


class _Unanswerable(Exception):
    """The list is used in a way that may change it unseen."""


def first_layer(
    scope: ast.AST, call: ast.Call, decide: Callable[[ast.expr], bool | None]
) -> ast.expr | None:
    """The expression certainly first in the list `call` (`nn.Sequential(*layers)`, or
    `nn.ModuleList(layers)`) is given, when `scope` builds that list by the statements before
    the call's statement in its body (see above); `decide` gives the truth of an `if` test
    over names the scope never rebinds, when known. None when unknown."""
    name = _given_list(call)
    body = getattr(scope, "body", None)
    if name is None or not isinstance(body, list):
        return None
    index = next((i for i, s in enumerate(body) if _contains(s, call)), None)
    if index is None or _read_elsewhere(scope, name):
        return None
    follower = _Follower(name, scope, decide)
    try:
        head = follower.block(body[:index], _UNKNOWN)
    except _Unanswerable:
        return None
    if isinstance(head, str) or not _stable(scope, head):
        return None
    return head


def _given_list(call: ast.Call) -> str | None:
    """The name of the list `call` receives whole: `f(*layers)` or `f(layers)`."""
    if len(call.args) != 1 or call.keywords:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Starred):
        arg = arg.value
    return arg.id if isinstance(arg, ast.Name) else None


def _contains(stmt: ast.stmt, node: ast.AST) -> bool:
    return any(child is node for child in ast.walk(stmt))


def _read_elsewhere(scope: ast.AST, name: str) -> bool:
    """`global`/`nonlocal` of the name, or a mention of it in a nested function, lambda,
    class or comprehension (which may change the list at another time)."""
    for node in _nodes(scope):
        if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return True
        nested = (
            ast.FunctionDef,
            ast.AsyncFunctionDef,
            ast.Lambda,
            ast.ClassDef,
            ast.ListComp,
            ast.SetComp,
            ast.DictComp,
            ast.GeneratorExp,
        )
        if isinstance(node, nested) and node is not scope and _mentions(node, name):
            return True
    return False


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _stable(scope: ast.AST, expr: ast.expr) -> bool:
    """`expr` gives the same value at the call as where it was put in the list: a name or
    attribute chain (`relu`, `self.relu`) bound at most once in `scope`, or a `torch.nn`
    style constructor of literal arguments (`nn.ReLU(inplace=True)`)."""
    if isinstance(expr, ast.Call):
        arguments = [*expr.args, *(k.value for k in expr.keywords)]
        return _dotted(expr.func) is not None and all(
            isinstance(a, ast.Constant) for a in arguments
        )
    path = _dotted(expr)
    if path is None:
        return False
    stores = 0
    for node in _nodes(scope):
        target = node if isinstance(node, ast.Name | ast.Attribute) else None
        if target is not None and isinstance(target.ctx, ast.Store) and _dotted(target) == path:
            stores += 1
    return stores <= 1


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value)
        return f"{base}.{expr.attr}" if base is not None else None
    return None


class _Follower:
    """Follows the head of the list `name` through statements (see `first_layer`)."""

    def __init__(
        self, name: str, scope: ast.AST, decide: Callable[[ast.expr], bool | None]
    ) -> None:
        self.name = name
        self.scope = scope
        self.decide = decide

    def block(self, stmts: list[ast.stmt], head: Head) -> Head:
        for stmt in stmts:
            head = self.stmt(stmt, head)
        return head

    def stmt(self, stmt: ast.stmt, head: Head) -> Head:
        if not _mentions(stmt, self.name):
            return head
        if isinstance(stmt, ast.If):
            return self._branch(stmt, head)
        if isinstance(stmt, ast.For | ast.While) and not stmt.orelse:
            header = (
                stmt.test if isinstance(stmt, ast.While) else ast.Tuple([stmt.target, stmt.iter])
            )
            if _mentions(header, self.name):
                raise _Unanswerable
            return self._loop(stmt.body, head)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            return self._assign(stmt.targets[0], stmt.value)
        if (
            isinstance(stmt, ast.AugAssign)
            and isinstance(stmt.op, ast.Add)
            and _is_name(stmt.target, self.name)
            and not _mentions(stmt.value, self.name)
        ):
            return _appended(head, stmt.value)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return self._method(stmt.value, head)
        raise _Unanswerable

    def _branch(self, stmt: ast.If, head: Head) -> Head:
        if _mentions(stmt.test, self.name):
            raise _Unanswerable
        known = self.decide(stmt.test) if _unchanging(self.scope, stmt.test) else None
        if known is not None:
            return self.block(stmt.body if known else stmt.orelse, head)
        return _join(self.block(stmt.body, head), self.block(stmt.orelse, head))

    def _loop(self, body: list[ast.stmt], head: Head) -> Head:
        if any(isinstance(n, ast.Break | ast.Continue) for n in ast.walk(ast.Module(body, []))):
            raise _Unanswerable
        joined = head
        for _ in range(3):
            after = _join(joined, self.block(body, joined))
            if _same(after, joined):
                return joined
            joined = after
        return _UNKNOWN

    def _assign(self, target: ast.expr, value: ast.expr) -> Head:
        if not _is_name(target, self.name) or _mentions(value, self.name):
            if _is_name(target, self.name) and _is_slice_of(value, self.name):
                return _UNKNOWN  # `rep = rep[1:]`: a new list, head unknown
            raise _Unanswerable
        if isinstance(value, ast.List | ast.Tuple):
            return _appended(_EMPTY, value)
        return _UNKNOWN

    def _method(self, call: ast.Call, head: Head) -> Head:
        func = call.func
        if not (isinstance(func, ast.Attribute) and _is_name(func.value, self.name)):
            raise _Unanswerable
        if call.keywords or any(_mentions(a, self.name) for a in call.args):
            raise _Unanswerable
        if func.attr == "append" and len(call.args) == 1:
            return call.args[0] if head == _EMPTY else head
        if func.attr == "extend" and len(call.args) == 1:
            return _appended(head, call.args[0])
        if func.attr == "insert" and len(call.args) == 2:
            at = call.args[0]
            position = at.value if isinstance(at, ast.Constant) else None
            if position == 0 and not isinstance(position, bool):
                return call.args[1]
            if isinstance(position, int) and position > 0:
                return call.args[1] if head == _EMPTY else head
            return call.args[1] if head == _EMPTY else _UNKNOWN
        raise _Unanswerable


def _is_name(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


def _is_slice_of(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Subscript) and _is_name(expr.value, name)


def _appended(head: Head, added: ast.expr) -> Head:
    """The head after `+= added` / `.extend(added)`."""
    if head != _EMPTY:
        return head
    if isinstance(added, ast.List | ast.Tuple):
        if not added.elts:
            return _EMPTY
        first = added.elts[0]
        return _UNKNOWN if isinstance(first, ast.Starred) else first
    return _UNKNOWN


def _same(a: Head, b: Head) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a is b or ast.dump(a) == ast.dump(b)


def _join(a: Head, b: Head) -> Head:
    """What is certain of the head on either of two paths."""
    return a if _same(a, b) else _UNKNOWN


def _unchanging(scope: ast.AST, test: ast.expr) -> bool:
    """A test over names `scope` never assigns (its parameters, module constants)."""
    inner = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
    if not isinstance(inner, ast.Name):
        return False
    return not any(
        isinstance(n, ast.Name) and n.id == inner.id and isinstance(n.ctx, ast.Store)
        for n in _nodes(scope)
    )

"""Containers of tensors a loop walks: which element the loop yields first.

`for p in params.values(): p.grad.zero_()` fails on the loop's first element when that
tensor's `.grad` is still None, whatever the others hold. So a read of `p.grad` in a loop
over a container made of fresh leaves fails as surely as a read of its first leaf, provided
the container still starts with that leaf when the loop runs:

* the loop walks `X`, `X.values()`, or binds the read name last in `for k, p in X.items()`
  (see `loop_container`), or a list or tuple written right there (`for p in [w1, w2]`);
* `X` is bound to a list, tuple or dict written with its elements (`first_item`: the first
  one, not a `*rest` or a `**more`), and nothing in the scope may change which element comes
  first (`changed_in`: no item stored or deleted, no `insert`, `pop`, `remove`, `clear`,
  `update`, `sort`, `reverse`...; `append` and `extend` only add after it);
* or `X` is bound to a concatenation of such containers (`G_params + D_params`, see
  `concatenated_parts`): a new list holding every element of each part in turn, so its
  first element is the first element of some part (of the first that is not empty); when
  every element of every part is a fresh leaf, so is the first.

Which tensor that first element is, and whether it is a fresh leaf, is the business of
`unfilled_grads` (the element itself, or what a helper returns) and `handed_leaves` (a
container handed down to the function that reads it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

# Methods that may change which element a list or dict yields first.
_REORDERING = frozenset(
    "insert pop popitem remove clear update setdefault sort reverse __setitem__ __delitem__".split()
)


def first_item(expr: ast.expr | None) -> ast.expr | None:
    """The first element a literal list, tuple or dict (its first value) yields, when the
    literal spells it out."""
    if isinstance(expr, ast.List | ast.Tuple) and expr.elts:
        first = expr.elts[0]
        return None if isinstance(first, ast.Starred) else first
    if isinstance(expr, ast.Dict) and expr.keys and expr.keys[0] is not None:
        return expr.values[0]
    return None


def concatenated_parts(expr: ast.expr) -> list[ast.expr] | None:
    """The parts of a concatenation written with `+` (`a + b + c`: `[a, b, c]`), when there
    are at least two and each is a name or a call (`list(m.parameters())`); None for
    anything else. Whether the parts are containers (and `+` concatenates rather than adds
    tensors) is for the caller to establish part by part."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add)):
        return None
    parts: list[ast.expr] = []
    for side in (expr.left, expr.right):
        inner = concatenated_parts(side)
        if inner is not None:
            parts.extend(inner)
        elif isinstance(side, ast.Name | ast.Call):
            parts.append(side)
        else:
            return None
    return parts


def loop_container(loop: ast.For | ast.AsyncFor, name: str) -> ast.expr | None:
    """The container whose elements `loop` binds to `name`: `X` of `for name in X`,
    `for name in X.values()`, or `for key, name in X.items()` (X a name or a literal)."""
    target, iterable = loop.target, loop.iter
    if isinstance(target, ast.Name) and target.id == name:
        if _method_of(iterable, "values"):
            assert isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
            return iterable.func.value
        return iterable if isinstance(iterable, ast.Name | ast.List | ast.Tuple) else None
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[1], ast.Name)
        and target.elts[1].id == name
        and _method_of(iterable, "items")
    ):
        assert isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
        return iterable.func.value
    return None


def changed_in(nodes: Iterable[ast.AST], name: str) -> bool:
    """Whether any of `nodes` (a scope's) may change which element the container bound to
    `name` yields first: an item stored or deleted (`X[k] = v`, `del X[k]`), an augmented
    assignment, or a reordering method (`X.insert(0, v)`, `X.pop(0)`, `X.clear()`...)."""
    for node in nodes:
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store | ast.Del)
            and _is_name(node.value, name)
        ):
            return True
        if isinstance(node, ast.AugAssign) and _is_name(node.target, name):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _REORDERING
            and _is_name(node.func.value, name)
        ):
            return True
    return False


def grown_or_changed_in(nodes: Iterable[ast.AST], name: str) -> bool:
    """`changed_in`, or an element added (`X.append(v)`, `X.extend(vs)`): whether any of
    `nodes` may make the container bound to `name` hold anything it was not built with."""
    if changed_in(nodes := list(nodes), name):
        return True
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("append", "extend")
        and _is_name(node.func.value, name)
        for node in nodes
    )


def _method_of(expr: ast.expr, method: str) -> bool:
    """`X.method()` without arguments, X a plain name."""
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == method
        and isinstance(expr.func.value, ast.Name)
        and not expr.args
        and not expr.keywords
    )


def _is_name(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name

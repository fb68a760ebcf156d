"""Loops that certainly run their body at least once.

`every_iteration` facts ("this statement runs on every iteration of that loop") stop at an
inner loop, because an inner loop may run zero times. Some inner loops cannot: a loop over
a dict or tuple whose entries the analysis knows (`for key in losses:` where `losses` is
`{"ce": ..., "mse": ...}`, or over its `.items()`, `.keys()`, `.values()`), or over
`range(n)` with literal bounds that leave at least one number, or over a tensor whose first
dimension is known and not zero. Their body runs on every
iteration of the loop around them (checked against Python semantics: iterating a non-empty
dict, tuple or range yields at least one item; changing a dict's size while iterating
raises).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis.names import dotted
from gradguard.analysis.values import Kind, Value

_MAPPING_VIEWS = frozenset({"items", "keys", "values"})


def certainly_entered(
    iterable: ast.expr, value: Value, lookup: Callable[[str], Value | None]
) -> bool:
    """True when iterating `iterable` (evaluated to `value`) yields at least one item."""
    if _known_entries(value) or _nonempty_tensor(value):
        return True
    if not isinstance(iterable, ast.Call) or iterable.keywords:
        return False
    func = iterable.func
    if isinstance(func, ast.Name) and func.id == "range":
        return _nonempty_range(iterable.args)
    if isinstance(func, ast.Attribute) and func.attr in _MAPPING_VIEWS and not iterable.args:
        key = dotted(func.value)
        receiver = lookup(key) if key is not None else None
        return receiver is not None and receiver.kind is Kind.MAPPING and _known_entries(receiver)
    return False


def _known_entries(value: Value) -> bool:
    """A dict or tuple/list value whose entries are known and at least one."""
    return value.kind in (Kind.MAPPING, Kind.SEQUENCE) and bool(value.elements)


def _nonempty_tensor(value: Value) -> bool:
    """A tensor whose whole shape is known, with a first dimension of at least one: iterating
    it yields that many slices (checked against torch 2.13.0: `for x in torch.randn(4, 2)`
    runs four times; a 0-dim tensor raises instead of yielding nothing)."""
    shape = value.shape
    if value.kind is not Kind.TENSOR or not shape.exact or not shape.dims:
        return False
    first = shape.dims[0]
    return first is not None and first >= 1


def _nonempty_range(args: list[ast.expr]) -> bool:
    """`range(3)`, `range(1, 4)`: integer literal bounds leaving at least one number (a step
    other than the default is not judged)."""
    bounds = [a.value for a in args if isinstance(a, ast.Constant) and type(a.value) is int]
    if len(bounds) != len(args):
        return False
    if len(bounds) == 1:
        return bounds[0] >= 1
    if len(bounds) == 2:
        return bounds[1] > bounds[0]
    return False

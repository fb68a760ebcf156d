"""What an `if` test tells each branch about the names it tests (type narrowing).

`if h is not None: h.detach_()` leaves `h` detached on one branch and `None` on the other:
no path carries the old graph on. Without narrowing the `else` path would keep the old
value and the join would look like an undetached carry. Only facts that hold whatever the
values are: `x is None` / `x is not None` (identity tests cannot be overloaded), combined
with `not`, `and` (all conjuncts hold on the true branch) and `or` (all disjuncts fail on
the false branch).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Facts:
    """Dotted names certainly bound to None on one branch."""

    none: frozenset[str] = frozenset()

    def __and__(self, other: Facts) -> Facts:
        return Facts(self.none | other.none)


NOTHING = Facts()


def of_test(test: ast.expr) -> tuple[Facts, Facts]:
    """The facts on the branch where `test` is true, and on the branch where it is false."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        when_true, when_false = of_test(test.operand)
        return when_false, when_true
    if isinstance(test, ast.BoolOp):
        parts = [of_test(value) for value in test.values]
        if isinstance(test.op, ast.And):
            combined = NOTHING
            for when_true, _ in parts:
                combined = combined & when_true
            return combined, NOTHING
        combined = NOTHING
        for _, when_false in parts:
            combined = combined & when_false
        return NOTHING, combined
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        key = _dotted(test.left)
        if key is None:
            return NOTHING, NOTHING
        if isinstance(test.ops[0], ast.Is):
            return Facts(frozenset({key})), NOTHING
        if isinstance(test.ops[0], ast.IsNot):
            return NOTHING, Facts(frozenset({key}))
    return NOTHING, NOTHING


def _dotted(expr: ast.expr) -> str | None:
    """`a.b.c` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))

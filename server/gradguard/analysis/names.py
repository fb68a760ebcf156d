"""Dotted names: how the analysis keys a variable or an attribute chain (`self.hidden`)."""

from __future__ import annotations

import ast


def dotted(expr: ast.expr) -> str | None:
    """`self.hidden` for an Attribute chain rooted in a Name, `h` for a Name, else None."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr}" if base is not None else None
    return None


def callee_name(func: ast.expr) -> str | None:
    """`f` for the callee of `f(...)`, `m` for that of `x.m(...)`, else None."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None

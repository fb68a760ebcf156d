"""Syntactic def-use facts used to judge fix safety: which names feed a value, and where a
name is read."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from gradguard.analysis.names import dotted


def assigned_names(target: ast.expr) -> set[str]:
    """Dotted names bound by an assignment target."""
    key = dotted(target)
    if key is not None:
        return {key}
    if isinstance(target, ast.Tuple | ast.List):
        found: set[str] = set()
        for element in target.elts:
            found |= assigned_names(element)
        return found
    if isinstance(target, ast.Starred):
        return assigned_names(target.value)
    return set()


def read_names(node: ast.AST) -> set[str]:
    """Dotted names read anywhere inside `node` (`self.hidden` counts as `self` too)."""
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name | ast.Attribute) and isinstance(
            getattr(child, "ctx", None), ast.Load
        ):
            key = dotted(child)
            if key is not None:
                found.add(key)
    return found


def names_feeding(scope: Iterable[ast.stmt], roots: set[str]) -> set[str]:
    """Every name whose assignment (anywhere in `scope`) can flow into one of `roots`."""
    assignments: list[tuple[set[str], set[str]]] = []
    for stmt in scope:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                targets: set[str] = set()
                for target in node.targets:
                    targets |= assigned_names(target)
                assignments.append((targets, read_names(node.value)))
            elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
                assignments.append((assigned_names(node.target), read_names(node.value)))
    feeding = set(roots)
    changed = True
    while changed:
        changed = False
        for targets, reads in assignments:
            if targets & feeding and not reads <= feeding:
                feeding |= reads
                changed = True
    return feeding


def reads_key(node: ast.AST, key: str) -> bool:
    """True when `node` reads the dotted name `key`."""
    return key in read_names(node)

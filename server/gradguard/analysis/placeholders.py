"""None placeholders: the stores `self.<attr> = None` by which the methods of a class mark an
attribute as not set yet (`self.last_z = None` in `__init__`, before `forward` keeps the
sampled latent there).

A store of the literal None leaves None, whatever else the file does: an attribute whose
every other store is the one store of one method (`kept_state.candidates_of`) holds, in any
reader, either None or what that method left (`Value.unless_none`). Reading an attribute
None lacks (`.grad`, `.shape`) raises AttributeError on None, so a read that goes on reads
it of what the method left."""

from __future__ import annotations

import ast

from gradguard.analysis.walk import NESTED_CODE, own_nodes


def none_placeholders(cls: ast.ClassDef) -> dict[str, int]:
    """How many stores of the literal None into `self.<attr>` (`self` the method's first
    parameter; `=` with one target, or annotated) the own bodies of the methods of `cls`
    hold, per attribute name."""
    found: dict[str, int] = {}
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not method.args.args or _static(method):
            continue
        me = method.args.args[0].arg
        for node in own_nodes(method.body):
            if isinstance(node, NESTED_CODE):
                continue
            attr = _none_stored(node, me)
            if attr is not None:
                found[attr] = found.get(attr, 0) + 1
    return found


def _static(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A static or class method: its first parameter is not the instance."""
    return any(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
        for d in method.decorator_list
    )


def _none_stored(node: ast.AST, me: str) -> str | None:
    """`attr` of `me.attr = None` (a single target) or `me.attr: T = None`."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if not (isinstance(value, ast.Constant) and value.value is None):
        return None
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return target.attr if target.value.id == me else None
    return None

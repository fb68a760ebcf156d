"""Attribute stores a method makes into its own instance: `self.lr = args.lr`.

A count of the file's attribute stores by name (`FileSyntax.attribute_stores`) tells which
attributes of an object code may have changed: `args.lr = 0.1` changes the namespace
`parse_args()` returned, so `args.lr` read afterwards is no longer the parsed setting. A
store into `self.<attr>`, where `self` is the first parameter of a method defined in a
class body of the file (not a static or class method, and never re-bound in it), changes
an instance of that class: not an object built elsewhere (an `argparse.Namespace`, another
class's instance). `own_instance_stores` counts those stores by class, so an analysis of an
object that is no instance of a class of the file may leave them out.
"""

from __future__ import annotations

import ast

from gradguard.analysis.walk import module_nodes_of, walk

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# Decorators after which the first parameter is not the instance.
_NOT_INSTANCE = frozenset({"staticmethod", "classmethod"})


def own_instance_stores(tree: ast.Module) -> dict[str, dict[str, int]]:
    """For each class of the file (by name), how many times its methods store into or
    delete each attribute of their own instance (`self.<attr> = ...`, `del self.<attr>`,
    also in functions and lambdas nested in the method that read its `self`)."""
    found: dict[str, dict[str, int]] = {}
    for cls in module_nodes_of(tree, ast.ClassDef):
        counts = found.setdefault(cls.name, {})
        for method in cls.body:
            me = _instance_name(method)
            if me is None:
                continue
            for node in walk(method):
                if (
                    isinstance(node, ast.Attribute)
                    and not isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == me
                ):
                    counts[node.attr] = counts.get(node.attr, 0) + 1
    return found


def _instance_name(stmt: ast.stmt) -> str | None:
    """The name of a method's first parameter (its instance) when nothing in the method
    binds that name again (no assignment, nested parameter, `global` or `nonlocal`); None
    for anything else."""
    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    if any(isinstance(d, ast.Name) and d.id in _NOT_INSTANCE for d in stmt.decorator_list):
        return None
    positional = [*stmt.args.posonlyargs, *stmt.args.args]
    if not positional:
        return None
    me = positional[0].arg
    for node in walk(stmt):
        if isinstance(node, ast.Name) and node.id == me and not isinstance(node.ctx, ast.Load):
            return None
        if isinstance(node, ast.Global | ast.Nonlocal) and me in node.names:
            return None
        if isinstance(node, ast.arg) and node.arg == me and node is not positional[0]:
            return None
    return me


def outside_instances(stored: dict[str, int], own: dict[str, dict[str, int]]) -> dict[str, int]:
    """`stored` (stores by attribute name, `FileSyntax.attribute_stores`) without the stores
    the file's methods make into their own instances (`own_instance_stores`): the stores
    that may change an object that is no instance of a class of the file."""
    left = dict(stored)
    for counts in own.values():
        for attr, count in counts.items():
            remaining = left.get(attr, 0) - count
            if remaining > 0:
                left[attr] = remaining
            else:
                left.pop(attr, None)
    return left

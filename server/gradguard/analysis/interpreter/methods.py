"""The methods instances of a class of the file run: its own, or those it inherits."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.analysis.model import FunctionNode
from gradguard.analysis.node_cache import cached_by_node

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter


@cached_by_node
def class_methods(owner: ast.ClassDef) -> dict[str, FunctionNode]:
    """The methods a class body defines, by name: the last definition of each, as Python
    binds them (a later `def` of the same name replaces the earlier one; of `@overload`
    stubs and their implementation, the implementation)."""
    return {f.name: f for f in owner.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}


def inherited_method(
    module: ModuleInterpreter, owner: ast.ClassDef, name: str
) -> FunctionNode | None:
    """The method `name` a class without one of its own inherits from a class of its file:
    along single inheritance only (each class has one base, a class the module binds once),
    so Python's method resolution order is that chain. None when a base of another file
    (`nn.Module`) or several bases could provide it first."""
    scope = module.scope_of(module.tree)
    seen = {id(owner)}
    current = owner
    for _ in range(_INHERITANCE_DEPTH):
        if (
            len(current.bases) != 1
            or current.keywords
            or not isinstance(current.bases[0], ast.Name)
        ):
            return None
        base_name = current.bases[0].id
        if (scope.counts or {}).get(base_name) != 1:
            return None
        base = module.class_named(base_name)
        if base is None or id(base) in seen:
            return None
        found = class_methods(base).get(name)
        if found is not None:
            return found
        seen.add(id(base))
        current = base
    return None


# How many classes of the file a method is looked up through.
_INHERITANCE_DEPTH = 4

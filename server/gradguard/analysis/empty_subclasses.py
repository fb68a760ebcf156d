"""Classes of the file that add nothing to their base: their instances run the base's code.

    class Net2(Net):
        \"\"\"Same topology, built wider.\"\"\"

`Net2(16)` runs `Net.__init__` and `Net.forward`: it has exactly the parameters, the
submodules and the forward a `Net(16)` has. Whatever the analysis knows of instances of
`Net` (they own every parameter they compute with, which attributes the forward runs)
holds of instances of `Net2`.

Certain only when Python's method resolution order is plainly that base: the class has
one base, a plain name bound once at module level to a class statement of the file, no
keywords (a metaclass could change everything) and no decorators, and its body holds
nothing but a docstring, `pass` or `...`. Followed along such a chain; anything else
(a method, a class attribute, two bases) is the class itself.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

# How many empty classes of the file are looked through.
_DEPTH = 4


def code_class(
    node: ast.ClassDef,
    class_named: Callable[[str], ast.ClassDef | None],
    bound_once: Callable[[str], bool],
) -> ast.ClassDef:
    """The class whose code instances of `node` run: `node`, or the base an empty class
    (see the module docstring) stands for, through a chain of them. `class_named` finds the
    class statement of the module's body binding a name, `bound_once` says whether the
    module binds that name exactly once."""
    seen = {id(node)}
    current = node
    for _ in range(_DEPTH):
        base = _sole_base(current, class_named, bound_once)
        if base is None or id(base) in seen:
            return current
        seen.add(id(base))
        current = base
    return current


def _sole_base(
    node: ast.ClassDef,
    class_named: Callable[[str], ast.ClassDef | None],
    bound_once: Callable[[str], bool],
) -> ast.ClassDef | None:
    """The one base of a class that adds nothing to it, when that base is a class of the
    file; else None."""
    if node.decorator_list or node.keywords or len(node.bases) != 1:
        return None
    base = node.bases[0]
    if not isinstance(base, ast.Name) or not bound_once(base.id):
        return None
    if not all(_adds_nothing(stmt) for stmt in node.body):
        return None
    return class_named(base.id)


def _adds_nothing(stmt: ast.stmt) -> bool:
    """A docstring, `pass` or `...`."""
    if isinstance(stmt, ast.Pass):
        return True
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and (isinstance(stmt.value.value, str) or stmt.value.value is Ellipsis)
    )

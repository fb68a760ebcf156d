"""Layers `__init__` keeps on one branch only: `if downsample: self.shortcut = nn.Conv2d(...)`.

A fresh module has no attribute `shortcut` until `__init__` sets one, and reading an
attribute a module never set raises AttributeError (`nn.Module.__getattr__`, checked
against torch 2.13.0; a plain object's lookup raises it too). So when the stores inside one
`if` statement of `__init__` (one per block of an `if`/`elif` chain, say) are all the
stores of that attribute in the class's methods, the class body binds no default of that
name (nor a `__getattr__`), and the class is built on `nn.Module` (or `object`) only, so no
base class of the file can set it first, every read that succeeds finds what one of those
stores kept (their join): on the instances where a storing block ran, that layer; on the
others, the read raises. A method reading it (`sc = self.shortcut(x)`) gets that layer,
whatever the branch condition was.

This is the attribute counterpart of the join rule for a plain name bound on one path only
(`interpreter.environment.join_env`). It does not say which instances took the branch: what
a read finds is known, not that a read happens.

Only stores that are statements of the `if` blocks themselves (and of `if` blocks nested
in them) count: a store in a loop, a `try` or a `with` is left to the rest of the class
scan. The interpreter keeps the value only when it is a module (see
`ModuleInterpreter._collect_attributes_of`); it also leaves out attributes that code outside
the class's methods sets (`model.shortcut = ...`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.names import class_body_names, dotted

# Bases under which no class of the file may set an attribute before `__init__`'s store.
_PLAIN_BASES = frozenset({"object", "Module", "nn.Module", "torch.nn.Module"})


def one_sided_layers(
    cls: ast.ClassDef, branch: ast.If, stores: dict[str, int]
) -> dict[str, list[ast.expr]]:
    """Each attribute `branch` (an `if` statement of `__init__`'s own body, with its
    `elif`/`else` blocks and the `if` blocks nested in them) stores as `self.<attr> = expr`
    statements of those blocks, when those are all the stores of it in `cls`'s methods
    (`stores`: stores by attribute name) and the class body binds no default of it, for a
    class whose bases are all `nn.Module` or `object` (see the module docs): the attribute
    with the expressions stored (a read that succeeds finds one of them)."""
    found: dict[str, list[ast.expr]] = {}
    if cls.keywords or cls.decorator_list:
        return found
    if not all(dotted(base) in _PLAIN_BASES for base in cls.bases):
        return found
    defaults = class_body_names(cls)
    if defaults & {"__getattr__", "__getattribute__"}:
        return found  # a read of an unset attribute may not raise
    for stmt in _branch_statements(branch):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
            found.setdefault(target.attr, []).append(stmt.value)
    return {
        attr: exprs
        for attr, exprs in found.items()
        if stores.get(attr) == len(exprs) and attr not in defaults
    }


def _branch_statements(branch: ast.If) -> Iterator[ast.stmt]:
    """The statements of both blocks of `branch`, entering nested `if` statements only."""
    for stmt in (*branch.body, *branch.orelse):
        if isinstance(stmt, ast.If):
            yield from _branch_statements(stmt)
        else:
            yield stmt

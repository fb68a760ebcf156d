"""Classes whose instances hold only settings: never a tensor, a module or a parameter.

Training scripts keep their hyperparameters on a plain class: `class Opt: ngf = 8; lr =
2e-4`, then `opt = Opt()` handed to every constructor (`Generator(opt)` reading `opt.ngf`).
Such an instance brings no parameter and no tensor into what it is given to: a module class
built from it owns what it computes with as surely as one built from numbers
(`calls._plain`).

A class is one only when all of this holds (anything else: not known, as before):

* it is defined once at module level, with no base (or `object`), no keywords and no
  decorator, and its body holds only a docstring, `pass` and class attributes bound to
  literals (numbers, strings, flags, None, tuples of those); no methods, so no code of its
  own may store anything on an instance;
* the file never names `setattr`, `delattr`, `vars`, `__dict__` or `__setattr__`;
* the class name is read only as `Name()` called with nothing, each such call being the
  value of a `name = Name()` bound once; that object, followed into every name, parameter
  of the file's functions and constructors and `self` attribute it reaches
  (`constant_dicts.Aliases`), is never handed to code outside the file, put in a
  container, returned, changed in place, nor the receiver of an attribute store or deletion
  (`opt.backbone = nn.Linear(...)` would bring a module in).
"""

from __future__ import annotations

import ast

from gradguard.analysis.config_objects import sets_attributes_dynamically
from gradguard.analysis.constant_dicts import (
    Aliases,
    is_literal,
    methods_taking_self,
    never_changed,
)
from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.names import binding_counts
from gradguard.analysis.walk import module_nodes


def settings_classes(tree: ast.Module) -> frozenset[str]:
    """The names of the module-level classes of the file whose instances hold only
    settings (see the module docstring)."""
    candidates = [s for s in tree.body if isinstance(s, ast.ClassDef) and _settings_body(s)]
    if not candidates or sets_attributes_dynamically(tree):
        return frozenset()
    nodes = list(module_nodes(tree))
    bound = binding_counts(nodes)
    flow = NameFlow(tree)
    methods = {
        id(method): node
        for node in nodes
        if isinstance(node, ast.ClassDef)
        for method in methods_taking_self(node)
    }
    return frozenset(
        node.name
        for node in candidates
        if bound.get(node.name) == 1 and _instances_kept(node, flow, methods, nodes)
    )


def _settings_body(node: ast.ClassDef) -> bool:
    """No base but `object`, no keywords or decorators; a body of literal class attributes."""
    if node.keywords or node.decorator_list:
        return False
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases):
        return False
    for index, stmt in enumerate(node.body):
        if isinstance(stmt, ast.Pass):
            continue
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        if not _literal_attribute(stmt):
            return False
    return True


def _literal_attribute(stmt: ast.stmt) -> bool:
    """`lr = 2e-4`, `betas: tuple[float, float] = (0.5, 0.999)`."""
    if isinstance(stmt, ast.Assign):
        return all(isinstance(t, ast.Name) for t in stmt.targets) and is_literal(stmt.value)
    return (
        isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.value is not None
        and is_literal(stmt.value)
    )


def _instances_kept(
    node: ast.ClassDef, flow: NameFlow, methods: dict[int, ast.ClassDef], nodes: list[ast.AST]
) -> bool:
    """Every read of the class builds `name = Cls()`, and no such object may be changed or
    reach code whose names are not followed (see the module docstring)."""
    key = (id(flow.tree), node.name)
    loads = flow.loads.get(key, [])
    if not loads:
        return False
    for name in loads:
        call = flow.parents.get(id(name))
        if not (isinstance(call, ast.Call) and call.func is name):
            return False
        if call.args or call.keywords:
            return False
        target = _bound_name(call, flow)
        if target is None:
            return False
        aliases = Aliases(flow, target, methods)
        if not never_changed(aliases, nodes) or _attribute_stored(aliases, nodes):
            return False
    return True


def _bound_name(call: ast.Call, flow: NameFlow) -> tuple[int, str] | None:
    """The key of `name` in `name = call`, when that is the name's only binding."""
    parent = flow.parents.get(id(call))
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
        return None
    target = parent.targets[0]
    if not isinstance(target, ast.Name):
        return None
    key = flow.key_of(target)
    if key is None or len(flow.bindings.get(key, ())) != 1:
        return None
    return key


def _attribute_stored(aliases: Aliases, nodes: list[ast.AST]) -> bool:
    """Some holder of the object is the receiver of an attribute store or deletion
    (`opt.lr = ...`, `del opt.lr`, `opt.lr += 1`)."""
    return any(
        isinstance(node, ast.Attribute)
        and not isinstance(node.ctx, ast.Load)
        and aliases.whole(node.value)
        for node in nodes
    )

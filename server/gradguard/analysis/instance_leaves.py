"""Tensors a fresh instance of a plain class of the file holds from its `__init__`.

Hand-written models often keep their weights on a small class (`self.w1 =
torch.randn(..., requires_grad=True)` in `__init__`) and read `net.w1.grad` in the training
loop. `net = TwoLayerNet(...)` certainly makes `net.w1` a tensor no backward has reached yet
(its `.grad` is None) when:

* `TwoLayerNet` is a class of the file, defined once and never rebound, built on no base
  but `object` (nothing inherited can run or rebind anything), without decorators or
  class keywords, whose `__init__` runs no backward (`unfilled_grads.Paths` decides);
* its `__init__` binds `self.w1` by a statement of its own body (not under an `if`, a loop
  or a `with`) to an expression that makes a new tensor (`Paths._fresh_tensor`);
* that statement is the file's only store (or deletion) of an attribute named `w1` besides
  augmented assignments (`net.w1 -= lr * g`, which update a tensor in place and keep it),
  and the file never calls `setattr`: every instance keeps that tensor.

Inside a function whose parameter holds such an instance at every call (see
`handed_leaves`), `net.forward(x)` runs the class's own method (no attribute of that name is
ever stored either), so whether it may run backward is that method's body.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from gradguard.analysis.names import dotted
from gradguard.analysis.walk import module_nodes_of

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class PlainInstances:
    """What instances of the file's plain classes hold and run (see the module docs)."""

    def __init__(
        self, tree: ast.Module, local: Mapping[str, Definition], rebound: frozenset[str]
    ) -> None:
        self.local = local
        self.rebound = rebound
        once: set[str] = set()
        many: set[str] = set()
        # `net.w1 -= lr * g` updates a tensor in place: the attribute keeps the same tensor.
        updated = {id(node.target) for node in module_nodes_of(tree, ast.AugAssign)}
        for node in module_nodes_of(tree, ast.Attribute):
            if id(node) in updated:
                continue
            if isinstance(node.ctx, ast.Del):
                many.add(node.attr)
            elif isinstance(node.ctx, ast.Store):
                (many if node.attr in once else once).add(node.attr)
        # `setattr(obj, name, ...)` may store any attribute.
        self.any_stored = any(
            name.id in ("setattr", "delattr") for name in module_nodes_of(tree, ast.Name)
        )
        self.stored_once = frozenset(once - many)
        self.stored_more = frozenset(many)

    def plain_class(self, expr: ast.expr) -> ast.ClassDef | None:
        """The class of the file `expr` builds (`TwoLayerNet(...)`), when it is plain."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
            return None
        cls = self.local.get(expr.func.id)
        if not isinstance(cls, ast.ClassDef) or cls.name in self.rebound:
            return None
        if cls.decorator_list or cls.keywords:
            return None
        if any(not (isinstance(base, ast.Name) and base.id == "object") for base in cls.bases):
            return None
        return cls

    def init_binding(self, cls: ast.ClassDef, attr: str) -> ast.Assign | None:
        """The statement of `cls.__init__`'s own body binding `self.<attr>`, when it is the
        file's only store of an attribute named `attr`."""
        if self.any_stored or attr not in self.stored_once:
            return None
        init = _own_method(cls, "__init__")
        if init is None or not init.args.args:
            return None
        key = f"{init.args.args[0].arg}.{attr}"
        for stmt in init.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Attribute)
                and dotted(stmt.targets[0]) == key
            ):
                return stmt
        return None

    def method(self, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
        """The method an instance of the plain class `cls` runs for `obj.<name>(...)`: its
        own (nothing is inherited), when no attribute of that name is ever stored."""
        if self.any_stored or name in self.stored_once or name in self.stored_more:
            return None
        if name.startswith("__"):
            return None
        return _own_method(cls, name)


def _own_method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    """A plain method `name` defined in the class body (not decorated: no staticmethod,
    property or wrapper changes what a call runs)."""
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name and not stmt.decorator_list:
            return stmt
    return None

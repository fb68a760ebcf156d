"""Layers a plain class keeps to itself, out of reach of every freeze.

A trainer object (`class Trainer:` with no base class) that builds a fresh torch.nn layer in
a method (`self.head = nn.Linear(d, k)`) and only ever calls it, steps it, or hands its
parameters to an optimizer keeps that layer to itself: no name other than `.head` of its
instances ever holds the layer, and the instances are not modules, so no module's
`.parameters()`, `.requires_grad_(False)` or freeze loop can include it. A freeze of a whole
object named by a plain name (`for p in encoder.parameters(): p.requires_grad_(False)`)
then cannot reach it, whatever that name holds: the layer still trains.

`enclosed(attribute)` holds when, in the whole file:

* every store of `.attribute` is `self.attribute = <fresh torch.nn layer>` (see
  `freeze_reach.fresh_layer`) in a method of a plain class: no base but `object`, no
  metaclass, not a base of any class of the file, and no method that could hand out its
  modules or parameters by another name (`parameters`, `modules`, `__getattr__`...);
* every read of `.attribute` calls the layer (`self.head(x)`), calls a method that keeps it
  (`zero_grad()`, `load_state_dict(...)`, `state_dict()`; `train()`, `eval()`, `to(...)` as
  statements of their own), or hands its parameters to an optimizer or a gradient clipper
  (`SGD(self.head.parameters(), ...)`, also through `list(...)`, `itertools.chain(...)`,
  a list, a tuple or a parameter-group dict);
* nothing binds, reads or deletes attributes by name (`setattr`, `getattr`, `delattr`,
  `vars`, `__dict__`).

A read of any other shape (`head = trainer.head`, `trainer.head.weight`, `return
self.head`) may hand the layer to a freeze, and leaves the question open.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis.walk import module_nodes_of, module_parents

Resolve = Callable[[ast.expr], "str | None"]
Fresh = Callable[[ast.expr], bool]

# Methods through which a class could hand out its modules or parameters by another name.
_HANDING_OUT = frozenset(
    {
        "parameters",
        "named_parameters",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "requires_grad_",
        "__getattr__",
        "__getattribute__",
    }
)
# Methods of a layer whose result never holds the layer or a parameter of it.
_KEEPING = frozenset({"zero_grad", "load_state_dict"})
# Methods returning the layer itself: kept only when the result is thrown away.
_RETURNING_SELF = frozenset({"train", "eval", "to", "cuda", "cpu", "float", "half", "double"})
# Where handing over `.parameters()` cannot freeze them.
_PARAMETER_TAKERS = ("torch.optim.", "torch.nn.utils.clip_grad")
_PARAMETER_WRAPPERS = frozenset({"list", "tuple", "itertools.chain"})
_BY_NAME = frozenset({"setattr", "getattr", "delattr", "vars"})


class EnclosedLayers:
    """The answers of one tree, computed on demand."""

    def __init__(self, tree: ast.Module, resolve: Resolve, fresh: Fresh) -> None:
        self.tree = tree
        self.resolve = resolve
        self.fresh = fresh
        self._parents: dict[int, ast.AST] | None = None
        self._plain_methods: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] | None = None
        self._by_name: bool | None = None

    def enclosed(self, attribute: str) -> bool:
        """Whether the fresh layer at `.attribute` is kept to a plain class (see above)."""
        if self._attributes_by_name():
            return False
        stored = False
        for node in module_nodes_of(self.tree, ast.Attribute):
            if node.attr != attribute:
                continue
            if isinstance(node.ctx, ast.Load):
                if not self._kept_read(node):
                    return False
            elif not self._kept_store(node):
                return False
            else:
                stored = True
        return stored

    @property
    def parents(self) -> dict[int, ast.AST]:
        if self._parents is None:
            self._parents = module_parents(self.tree)
        return self._parents

    def _attributes_by_name(self) -> bool:
        if self._by_name is None:
            self._by_name = any(
                isinstance(node, ast.Name) and node.id in _BY_NAME
                for node in module_nodes_of(self.tree, ast.Name)
            ) or any(node.attr == "__dict__" for node in module_nodes_of(self.tree, ast.Attribute))
        return self._by_name

    def _kept_store(self, target: ast.Attribute) -> bool:
        """`self.<attribute> = <fresh layer>` in a method of a plain class."""
        statement = self.parents.get(id(target))
        if not (
            isinstance(statement, ast.Assign)
            and statement.targets == [target]
            and self.fresh(statement.value)
            and isinstance(target.value, ast.Name)
        ):
            return False
        method = self._method_of(statement)
        return (
            method is not None
            and bool(method.args.args)
            and method.args.args[0].arg == target.value.id
        )

    def _method_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The method of a plain class whose own body holds `node`."""
        if self._plain_methods is None:
            self._plain_methods = {}
            for cls in _plain_classes(self.tree):
                for method in cls.body:
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                        self._plain_methods[id(method)] = method
        scope = self.parents.get(id(node))
        while scope is not None and not isinstance(
            scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            scope = self.parents.get(id(scope))
        return self._plain_methods.get(id(scope)) if scope is not None else None

    def _kept_read(self, read: ast.Attribute) -> bool:
        parent = self.parents.get(id(read))
        if isinstance(parent, ast.Call) and parent.func is read:
            return True  # the layer called
        if not isinstance(parent, ast.Attribute):
            return False
        call = self.parents.get(id(parent))
        if not (isinstance(call, ast.Call) and call.func is parent):
            return False
        method = parent.attr
        if method in _KEEPING or (method == "state_dict" and not call.args and not call.keywords):
            return True
        if method in _RETURNING_SELF:
            return isinstance(self.parents.get(id(call)), ast.Expr)
        if method in ("parameters", "named_parameters"):
            return self._handed_to_taker(call)
        return False

    def _handed_to_taker(self, expr: ast.expr) -> bool:
        """`expr` is (within lists, tuples, dicts, `list(...)`, `itertools.chain(...)`) an
        argument of an optimizer's construction or of a gradient clipper."""
        node: ast.AST = expr
        while True:
            parent = self.parents.get(id(node))
            if isinstance(parent, ast.List | ast.Tuple | ast.Starred | ast.Dict | ast.keyword):
                node = parent
                continue
            if not (isinstance(parent, ast.Call) and parent.func is not node):
                return False
            called = self.resolve(parent.func) or (
                parent.func.id if isinstance(parent.func, ast.Name) else None
            )
            if called is None:
                return False
            if called.startswith(_PARAMETER_TAKERS):
                return True
            if called not in _PARAMETER_WRAPPERS and called.removeprefix("builtins.") not in (
                _PARAMETER_WRAPPERS
            ):
                return False
            node = parent


def _plain_classes(tree: ast.Module) -> list[ast.ClassDef]:
    """Classes of the file that are not modules and cannot hand their layers out by another
    name (see the module docstring)."""
    classes = list(module_nodes_of(tree, ast.ClassDef))
    bases = {
        base.id if isinstance(base, ast.Name) else base.attr
        for cls in classes
        for base in cls.bases
        if isinstance(base, ast.Name | ast.Attribute)
    }
    return [
        cls
        for cls in classes
        if all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases)
        and not cls.keywords
        and cls.name not in bases
        and not any(
            isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name in _HANDING_OUT
            for s in cls.body
        )
    ]

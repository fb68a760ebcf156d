"""The layers of an `nn.Sequential` subclass of the file that adds them by name in `__init__`.

Model code often builds a block as a subclass of `nn.Sequential` that registers its layers
one by one instead of passing them to the base's constructor:

    class ConvBlock(nn.Sequential):
        def __init__(self, cin, cout):
            super().__init__()
            self.add_module("conv", nn.Conv2d(cin, cout, 3, 1, 1))
            self.add_module("norm", nn.BatchNorm2d(cout))
            self.add_module("act", nn.LeakyReLU(0.2))

`nn.Sequential.forward` runs the modules of `_modules` in the order they were registered,
and `add_module` appends a new name at the end (checked against torch 2.13.0). A call of
`ConvBlock(3, 8)` is then a call of those three layers, in that order, exactly as
`nn.Sequential(nn.Conv2d(...), nn.BatchNorm2d(...), nn.LeakyReLU(0.2))` would be.

Certain only when nothing else can change what the class runs (anything else: None):

* the class statement is at module level, undecorated, without keywords (a metaclass), and
  has exactly one base, which resolves to `torch.nn.Sequential`;
* its body holds a docstring (or `pass`) and one plain `def __init__` and nothing else: no
  `forward` of its own, no other method, no class attribute;
* `__init__` (undecorated, `self` first, no `*args`/`**kwargs` given to the base) runs
  `super().__init__()` with no arguments as its first statement (after a docstring), then
  only `self.add_module("<name>", <call>)` statements with distinct literal names; `self`
  appears nowhere else.

The layers are returned as the calls that build them; whether each is a torch.nn layer is
the caller's business (resolving the call).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis import torch_api as api

# Resolves a name or dotted attribute to the torch path it names (`nn.Sequential` ->
# "torch.nn.Sequential"), None when it names nothing of torch for certain.
BaseResolver = Callable[[ast.expr], "str | None"]


def added_layers(node: ast.ClassDef, resolve: BaseResolver) -> tuple[ast.Call, ...] | None:
    """The calls building the layers an `nn.Sequential` subclass registers in `__init__`, in
    the order its `forward` runs them (see the module docstring); None when not certain."""
    if node.decorator_list or node.keywords or len(node.bases) != 1:
        return None
    if resolve(node.bases[0]) not in api.SEQUENTIAL:
        return None
    init: ast.FunctionDef | None = None
    for stmt in node.body:
        if _docstring_or_pass(stmt):
            continue
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__" and init is None:
            init = stmt
            continue
        return None
    return _registered(init) if init is not None else None


def _registered(init: ast.FunctionDef) -> tuple[ast.Call, ...] | None:
    """The layers `__init__` adds after `super().__init__()`, when that is all it does."""
    arguments = init.args
    if init.decorator_list or arguments.posonlyargs or not arguments.args:
        return None
    me = arguments.args[0].arg
    body = list(init.body)
    if body and _docstring_or_pass(body[0]):
        body = body[1:]
    if not body or not _bare_super_init(body[0]):
        return None
    layers: list[ast.Call] = []
    names: set[str] = set()
    for stmt in body[1:]:
        added = _add_module(stmt, me)
        if added is None or added[0] in names:
            return None
        names.add(added[0])
        layers.append(added[1])
    if not layers:
        return None
    # `self` may appear only as the receiver of the `add_module` calls.
    receivers = sum(1 for n in ast.walk(init) if isinstance(n, ast.Name) and n.id == me)
    return tuple(layers) if receivers == len(layers) else None


def _add_module(stmt: ast.stmt, me: str) -> tuple[str, ast.Call] | None:
    """`self.add_module("<name>", <call>)` as a statement: the name and the call."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "add_module"
        and isinstance(func.value, ast.Name)
        and func.value.id == me
        and len(call.args) == 2
        and not call.keywords
    ):
        return None
    name, layer = call.args
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return None
    return (name.value, layer) if isinstance(layer, ast.Call) else None


def _bare_super_init(stmt: ast.stmt) -> bool:
    """`super().__init__()` with no arguments, as a statement."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    func = call.func
    return (
        not call.args
        and not call.keywords
        and isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
        and not func.value.args
        and not func.value.keywords
    )


def _docstring_or_pass(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )

"""What every construction of a class of the file passes to a parameter of its `__init__`.

`Trainer(model, args)` stores `self.model = model`; the attribute then holds whatever the
file's constructions of `Trainer` pass for `model`. The answer is certain only when every
construction is seen:

* the class is defined once at the module's top level, undecorated, and its name is read
  only as the callee of calls unpacking nothing (never subclassed, passed around, stored
  or reached as `Trainer.__init__`), with at least one such call;
* the file never names `__class__` (`self.__class__(...)` would construct it unseen);
* the method is the class's own `__init__`, a plain `def` defined once in the class body,
  undecorated, and never re-binds the parameter (nor declares it `global`/`nonlocal`);
* every call passes the parameter by position or keyword (no default applies).
"""

from __future__ import annotations

import ast

from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.walk import module_nodes_of


def constructor_arguments(
    flow: NameFlow, owner: ast.ClassDef, method: ast.FunctionDef, parameter: str
) -> list[ast.expr] | None:
    """Every argument the file's constructions of `owner` pass for `parameter` of its
    `__init__` `method`, in the file's order; None when some construction may be unseen
    or may not pass it (see the module docstring)."""
    if not _plain_init(flow, owner, method, parameter):
        return None
    calls = _constructions(flow, owner)
    if not calls:
        return None
    positional = [*method.args.posonlyargs, *method.args.args]
    index = next((i for i, a in enumerate(positional) if a.arg == parameter), None)
    found = []
    for call in calls:
        argument = _passed(call, index, parameter, method)
        if argument is None:
            return None
        found.append(argument)
    return found


def _plain_init(
    flow: NameFlow, owner: ast.ClassDef, method: ast.FunctionDef, parameter: str
) -> bool:
    """`method` is `owner`'s only `__init__`, a plain method never re-binding `parameter`."""
    if method.name != "__init__" or method.decorator_list:
        return False
    if flow.parents.get(id(method)) is not owner:
        return False
    inits = [
        s
        for s in owner.body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "__init__"
    ]
    if inits != [method] or flow.bindings.get((id(method), parameter)):
        return False
    declared = (
        name for node in module_nodes_of(flow.tree, ast.Global, ast.Nonlocal) for name in node.names
    )
    return parameter not in set(declared)


def _constructions(flow: NameFlow, owner: ast.ClassDef) -> list[ast.Call]:
    """The calls constructing `owner`, when they are all its name's reads (else [])."""
    key = (id(flow.tree), owner.name)
    if (
        flow.parents.get(id(owner)) is not flow.tree
        or owner.decorator_list
        or len(flow.bindings.get(key, [])) != 1
        or _names_class_attribute(flow)
    ):
        return []
    calls = []
    for name in flow.loads.get(key, []):
        call = flow.parents.get(id(name))
        if not (
            isinstance(call, ast.Call)
            and call.func is name
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and all(k.arg is not None for k in call.keywords)
        ):
            return []
        calls.append(call)
    return calls


def _names_class_attribute(flow: NameFlow) -> bool:
    """The file reads `__class__` somewhere: an instance may construct another unseen."""
    return any(
        (isinstance(n, ast.Attribute) and n.attr == "__class__")
        or (isinstance(n, ast.Name) and n.id == "__class__")
        for n in module_nodes_of(flow.tree, ast.Attribute, ast.Name)
    )


def _passed(
    call: ast.Call, index: int | None, parameter: str, method: ast.FunctionDef
) -> ast.expr | None:
    """The argument `call` passes for `parameter` (position `index` counts `self`)."""
    if index is not None and index > 0 and index - 1 < len(call.args):
        return call.args[index - 1]
    if any(a.arg == parameter for a in method.args.posonlyargs):
        return None
    return next((k.value for k in call.keywords if k.arg == parameter), None)

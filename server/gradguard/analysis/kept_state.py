"""Which attributes a method of a class is the only writer of, syntactically: the
candidates of `ModuleInterpreter._collect_computed_in_methods` (tensors one method keeps on
`self` that every other method reads as that method left them)."""

from __future__ import annotations

import ast

from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import dotted
from gradguard.analysis.walk import NESTED_CODE, own_nodes


def candidates_of(
    method: FunctionNode, stores: dict[str, int], placeholders: dict[str, int] | None = None
) -> list[str]:
    """Attributes of `self` (the method's first parameter) that `method` alone stores in the
    file, given `stores`, the file's count of stores of each attribute name on any receiver
    (`FileSyntax.attribute_stores`): for a method other than `__init__`, the attribute of a
    statement `self.<attr> = ...` of its own body, that store being the file's only one
    besides the `placeholders` (stores of None by its class's methods, counted per name:
    `placeholders.none_placeholders`);
    for `__init__`, each attribute it stores (`self.<attr> = ...`, in branches too) whose
    every store in the file is one of those, when `__init__` hands `self` to no call
    (`self.setup()`, `helper(self)`, `self.net(x)`) and defines no function (a closure):
    code it called could read an attribute before its last store."""
    me = method.args.args[0].arg
    if method.name != "__init__":
        unset = placeholders or {}
        return [
            attr
            for attr in (_stored_on(stmt, me) for stmt in method.body)
            if attr is not None and stores.get(attr) == 1 + unset.get(attr, 0)
        ]
    own: dict[str, int] = {}
    for node in own_nodes(method.body):
        if isinstance(node, NESTED_CODE) or (isinstance(node, ast.Call) and _hands_on(node, me)):
            return []
        if _stores_into(node, me):
            assert isinstance(node, ast.Attribute)
            own[node.attr] = own.get(node.attr, 0) + 1
    return [attr for attr, count in own.items() if stores.get(attr) == count]


def _stores_into(node: ast.AST, me: str) -> bool:
    """`node` is `me.<attr>` stored into or deleted."""
    return (
        isinstance(node, ast.Attribute)
        and not isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and node.value.id == me
    )


def _stored_on(stmt: ast.stmt, me: str) -> str | None:
    """`attr` of `me.attr = expr` (one target)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Attribute) and dotted(target.value) == me:
        return target.attr
    return None


def _hands_on(call: ast.Call, me: str) -> bool:
    """Whether `call` may run code that reads `me`'s attributes: a method of it or of one of
    its attributes (`self.setup()`, a layer `self.net(x)`), or any call given `me` itself."""
    if isinstance(call.func, ast.Name) and call.func.id == "super":
        return False  # `super(Net, self)`: the base class's `__init__` runs next
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    root = dotted(receiver) if receiver is not None else None
    if root is not None and root.split(".")[0] == me:
        return True
    given = [*call.args, *(kw.value for kw in call.keywords)]
    return any(
        isinstance(arg, ast.Name) and arg.id == me
        for arg in (a.value if isinstance(a, ast.Starred) else a for a in given)
    )

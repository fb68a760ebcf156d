"""The attribute names a `setattr(obj, name, value)` statement certainly sets.

`setattr(model, "fc", layer)` is `model.fc = layer` spelt as a call. Code that rebuilds
several layers of a model loops over their names:

    for name in ("fc1", "fc2", "fc3"):
        ...
        setattr(model, name, new)

Python runs the body once per element of the literal, in order, so every name of it is
set, provided each run reaches the statement and sets it on the same object: the
statement sits directly in the loop's body (no `if`, `try` or `with` around it), nothing
before it in the body can leave the run (`break`, `continue`, `return`, `raise`), and the
body never re-binds the loop's name or the object's name (a `global`/`nonlocal` there,
or a nested scope, gives no answer either). The run may stop at an exception, as any
statement may; that is the analysis' usual assumption, not a guess about values.

Anything else (a name computed at run time, `named_children()`, a starred or keyword
argument) gives no name: unknown stays silent.
"""

from __future__ import annotations

import ast

from gradguard.analysis.names import attribute_root
from gradguard.analysis.walk import walk

# Statements after which the rest of a loop's body may not run on that iteration.
_LEAVES = (ast.Break, ast.Continue, ast.Return, ast.Raise)
# Nodes that open a scope of their own or bind names out of sight of a plain walk.
_OPAQUE = (
    ast.Global,
    ast.Nonlocal,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
)


def set_names(call: ast.Call, owner: ast.AST, block: list[ast.stmt]) -> tuple[str, ...]:
    """The attribute names `call` (`setattr(obj, name, value)`, the whole of a statement
    of `block`, the statement list `owner` holds) certainly sets on the object `obj`
    names: a string literal; or every element of the literal tuple or list of strings a
    `for` loop (`owner`) runs `name` over, as the module docstring says. Empty when that
    is not certain."""
    if len(call.args) != 3 or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return ()
    name = call.args[1]
    if isinstance(name, ast.Constant):
        return (name.value,) if isinstance(name.value, str) and name.value.isidentifier() else ()
    receiver = call.args[0]
    if not (
        isinstance(name, ast.Name)
        and isinstance(receiver, ast.Name | ast.Attribute)
        and isinstance(owner, ast.For)
        and block is owner.body
        and isinstance(owner.target, ast.Name)
        and owner.target.id == name.id
        and isinstance(owner.iter, ast.Tuple | ast.List)
    ):
        return ()
    names: list[str] = []
    for element in owner.iter.elts:
        if not (
            isinstance(element, ast.Constant)
            and isinstance(element.value, str)
            and element.value.isidentifier()
        ):
            return ()
        names.append(element.value)
    index = next(
        (i for i, s in enumerate(block) if isinstance(s, ast.Expr) and s.value is call), None
    )
    if index is None:
        return ()
    kept = {name.id, attribute_root(receiver)}
    for position, stmt in enumerate(block):
        for node in walk(stmt):
            if isinstance(node, _OPAQUE):
                return ()
            if position < index and isinstance(node, _LEAVES):
                return ()
            if (
                isinstance(node, ast.Name)
                and node.id in kept
                and not isinstance(node.ctx, ast.Load)
            ):
                return ()
    return tuple(dict.fromkeys(names))

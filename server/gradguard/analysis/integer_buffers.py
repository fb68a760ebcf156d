"""Whether a module's integer buffer (`ModuleRef.integer_buffer`) may have been changed.

The fact is made where the layer is built; code that hands the module (or one of its
layers) to other code, calls a method that may replace its buffers, or assigns or deletes a
`num_batches_tracked` anywhere in the same function may remove the counter or change its
dtype, so the fact is not used there (flow-insensitive: silent rather than wrong)."""

from __future__ import annotations

import ast

from gradguard.analysis import torch_api as api
from gradguard.analysis.node_cache import cached_by_node

# Methods of the module that leave its buffers as they are (they may cast floating
# tensors only, or read them).
_KEEPING = (api.MODULE_SELF_METHODS | api.MODULE_INFO_METHODS | {"forward", "eval"}) - {
    "apply",
    "register_buffer",
}
_COUNTER = "num_batches_tracked"
# Builtins that only read what they are given (`isinstance(m, nn.BatchNorm2d)`).
_READING = frozenset({"isinstance", "type", "id", "len", "print", "repr", "str", "hasattr"})


def counter_kept(scope: ast.AST, receiver: ast.expr) -> bool:
    """The integer buffer of the module `receiver` (a name or `self.bn`) is certainly as
    built within `scope` (the function, or the file): nothing there may change it."""
    root = _root(receiver)
    return root is not None and root not in _changed_roots(scope)


def _root(expr: ast.expr) -> str | None:
    """The name an expression made of attributes and subscripts starts from."""
    while isinstance(expr, ast.Attribute | ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


@cached_by_node
def _changed_roots(scope: ast.AST) -> frozenset[str]:
    """The names whose modules code in `scope` may change the buffers of."""
    changed: set[str] = set()
    for node in ast.walk(scope):
        changed.update(_call_roots(node) if isinstance(node, ast.Call) else _set_roots(node))
    return frozenset(changed)


def _call_roots(call: ast.Call) -> set[str]:
    """What `call` may change: what it is handed (`convert(bn)`, `fix(net[1])`) and the
    receiver of a method that may replace buffers (`bn.register_buffer(...)`)."""
    if isinstance(call.func, ast.Name) and call.func.id in _READING:
        return set()
    exprs = [a.value if isinstance(a, ast.Starred) else a for a in call.args]
    exprs += [k.value for k in call.keywords]
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr not in _KEEPING:
        exprs.append(func.value)
    return {root for expr in exprs if (root := _root(expr)) is not None}


def _set_roots(node: ast.AST) -> set[str]:
    """The modules whose `num_batches_tracked` the statement `node` assigns or deletes."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign | ast.Delete):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    return {
        root
        for target in targets
        for part in ast.walk(target)
        if isinstance(part, ast.Attribute)
        and part.attr == _COUNTER
        and (root := _root(part.value)) is not None
    }

"""Which modules a file trains: an optimizer is built from their parameters (or handed
them), or their parameters are updated by hand from their gradients.

`optimized(tree, key)` answers for the module spelt `key` (`model`, `self.net`):

* a call whose callee's name mentions `optim` (`torch.optim.SGD(...)`, `make_optimizer(...)`,
  `model.configure_optimizers(...)`) is handed `key`, or `key.parameters()` /
  `key.named_parameters()` anywhere in an argument, or is a method of `key` itself;
* a `for p in key.parameters():` loop reads a `.grad` in its body;
* a method stores `self.m = model` of a parameter it never rebinds, and a call of that
  method builds an optimizer from `model`: `self.m` is optimized (a trainer's `__init__`).

Syntactic, and computed per function and per statement of a class or module body
(`cached_by_node`): an edit of one function asks its own part again, not the file's.
"""

from __future__ import annotations

import ast

from gradguard.analysis.names import dotted, parameter_names
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.torch_api import uncast
from gradguard.analysis.walk import walk

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def optimized(tree: ast.Module, key: str) -> bool:
    """Whether the file builds an optimizer from the module `key` or updates its
    parameters by hand (see the module docs)."""
    return any(key in _statement_keys(stmt) for stmt in tree.body)


@cached_by_node
def _statement_keys(stmt: ast.stmt) -> frozenset[str]:
    """The modules one statement of a module or class body optimizes; a class's answer is
    its statements' (each asked apart), a function's is its whole code's."""
    if isinstance(stmt, ast.ClassDef):
        found = set(_keys_in([*stmt.decorator_list, *stmt.bases, *stmt.keywords]))
        for child in stmt.body:
            found.update(_statement_keys(child))
        return frozenset(found)
    return frozenset(_keys_in([stmt]))


def _keys_in(roots: list[ast.AST]) -> set[str]:
    found: set[str] = set()
    for root in roots:
        for node in walk(root):
            if isinstance(node, ast.For):
                found.update(_updated_by_hand(node))
            elif isinstance(node, ast.Call):
                found.update(_call_keys(node))
            elif isinstance(node, _DEFS):
                found.update(_optimized_on_self(node))
    return found


def _call_keys(call: ast.Call) -> set[str]:
    """The modules an optimizer-building call is given (see the module docs)."""
    callee = dotted(call.func)
    if callee is None or "optim" not in callee.lower():
        return set()
    parts = callee.split(".")
    found = {".".join(parts[:end]) for end in range(1, len(parts))}  # `model.configure_...`
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        key = dotted(arg)
        if key is not None:
            found.add(key)
        found.update(k for inner in walk(arg) if (k := _parameters_of(inner)) is not None)
    return found


def _updated_by_hand(loop: ast.For) -> set[str]:
    """`for p in key.parameters():` with a `.grad` read in its body: {key}."""
    key = _parameters_of(loop.iter)
    if key is None or not any(
        isinstance(n, ast.Attribute) and n.attr == "grad" for n in walk(loop)
    ):
        return set()
    return {key}


def _parameters_of(node: ast.AST) -> str | None:
    """`key` of `key.parameters()` or `key.named_parameters()`."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("parameters", "named_parameters")
    ):
        return dotted(node.func.value)
    return None


def _optimized_on_self(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """`self.x` stored from a parameter `p` the function never rebinds, when a call in the
    function builds an optimizer from `p`: {"self.x"}."""
    aliases: dict[str, list[str]] = {}
    for stmt in function.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        key = dotted(stmt.targets[0])
        value = uncast(stmt.value)
        if key is None or not key.startswith("self.") or not isinstance(value, ast.Name):
            continue
        if _bound_once(function, value.id):
            aliases.setdefault(value.id, []).append(key)
    if not aliases:
        return set()
    given: set[str] = set()
    for node in walk(function):
        if isinstance(node, ast.Call):
            given.update(_call_keys(node))
    return {key for alias, keys in aliases.items() if alias in given for key in keys}


def _bound_once(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """`name` is a parameter of `function` never re-bound in it."""
    if name not in parameter_names(function):
        return False
    return not any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for n in walk(function)
    )

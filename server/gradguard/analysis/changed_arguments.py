"""The parameters a function certainly changes in place, for its callers.

`def forward(self, x): out = x; out[:, :, :h] = self.conv(...); return out` writes into the
tensor its caller passed. When a graph node of the caller saved that tensor for backward
(the input of a convolution run just before, `a = self.body(x)`, then `b = self.split(x)`),
the backward fails with "one of the variables needed for gradient computation has been
modified by an inplace operation", though neither function looks wrong by itself (the shape
of Jee-King/TSAN's CSB block, issue #3).

A change counts only when it certainly happens on every call that returns:

* it is a statement of the function's own body (a `with` block counts as the body; an
  `if`, a loop or a `try` does not), and no statement before it may leave the function
  (`return`, `raise`, `yield`);
* the changed name is the parameter itself, never re-bound in the function, or a local
  bound once, by a statement of the body before the change, to exactly the parameter
  (`out = x`);
* the change writes the tensor's data: `p[...] = v`, `p[...] op= v`, `p op= v`, or a
  tensor method ending in `_` (`add_`, `clamp_`, `masked_fill_`, `copy_`, `zero_`...), not
  one changing only autograd's view of it (`requires_grad_`, `detach_`, `share_memory_`).

Whether the change matters is the caller's business: its argument must be a tensor that a
graph node certainly saved (`GraphEffects.arguments_changed_in_place`).
"""

from __future__ import annotations

import ast

from gradguard.analysis.names import local_binding_counts
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import own_nodes

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# In-place methods that change no tensor data (autograd flags, storage sharing).
_NOT_DATA = frozenset({"requires_grad_", "detach_", "share_memory_", "retain_grad_"})
_LEAVES = (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)


@cached_by_node
def changed_parameters(function: FunctionNode) -> dict[str, ast.AST]:
    """Each parameter `function` certainly changes in place (see the module docs), with the
    node that changes it."""
    spec = function.args
    parameters = {a.arg for a in (*spec.posonlyargs, *spec.args, *spec.kwonlyargs)}
    counts = local_binding_counts(function)
    in_place = _augmented_names(function)
    kept = {p for p in parameters if counts.get(p, 0) == 1 + in_place.get(p, 0)}
    aliases: dict[str, str] = {}  # local name -> the parameter it holds
    found: dict[str, ast.AST] = {}
    for stmt in _straight_body(function.body):
        alias = _alias(stmt, kept)
        if alias is not None and counts.get(alias[0], 0) == 1 + in_place.get(alias[0], 0):
            aliases[alias[0]] = alias[1]
            continue
        for name, node in _changed_names(stmt):
            parameter = name if name in kept else aliases.get(name)
            if parameter is not None and parameter not in found:
                found[parameter] = node
        if any(isinstance(node, _LEAVES) for node in ast.walk(stmt)):
            break  # (its own change, as in `return x.clamp_(0, 1)`, is made first)
    return found


def _straight_body(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run on every way through `body`, in order, up to the first that may
    branch: `with` blocks are entered, anything else compound ends the list."""
    found: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.With | ast.AsyncWith):
            inner = _straight_body(stmt.body)
            found.extend(inner)
            if len(inner) != len(stmt.body):
                return found
            continue
        if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While | ast.Try | ast.Match):
            found.append(stmt)  # read for what leaves, never for a change
            return found
        found.append(stmt)
    return found


def _augmented_names(function: FunctionNode) -> dict[str, int]:
    """How many `name op= value` statements the function's own body holds (not nested
    functions', as `local_binding_counts` counts), per name: in place on a tensor, they
    re-bind nothing."""
    found: dict[str, int] = {}
    for node in own_nodes(function.body):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = found.get(node.target.id, 0) + 1
    return found


def _alias(stmt: ast.stmt, parameters: set[str]) -> tuple[str, str] | None:
    """`out = x` for a parameter `x`: (out, x)."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Name)
        and stmt.value.id in parameters
    ):
        return stmt.targets[0].id, stmt.value.id
    return None


def _changed_names(stmt: ast.stmt) -> list[tuple[str, ast.AST]]:
    """The names whose tensor `stmt` writes into, with the node doing it: a subscript or
    augmented store, or an in-place method called on a name at the head of the chain of
    calls the statement evaluates (`x.clamp_(-1, 1).add_(1)`, alone, assigned or
    returned)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return [(target.value.id, stmt)]
    if isinstance(stmt, ast.AugAssign):
        target = stmt.target
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return [(target.value.id, stmt)]
        if isinstance(target, ast.Name):
            return [(target.id, stmt)]
        return []
    value = stmt.value if isinstance(stmt, ast.Expr | ast.Assign | ast.Return) else None
    found: list[tuple[str, ast.AST]] = []
    while isinstance(value, ast.Call | ast.Attribute):
        func = value.func if isinstance(value, ast.Call) else None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr.endswith("_")
            and not func.attr.startswith("_")
            and func.attr not in _NOT_DATA
        ):
            found.append((func.value.id, value))
        value = (
            func.value
            if isinstance(func, ast.Attribute)
            else (value.value if isinstance(value, ast.Attribute) else None)
        )
    return found

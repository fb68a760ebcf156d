"""Gradients a `zero_grad()` has just set to None.

`optimizer.zero_grad()` and `module.zero_grad()` set every gradient they cover to None
(`set_to_none=True` is their default since torch 2.0), whatever earlier iterations of a
loop filled in. So a `.grad` read that fails on None (`p.grad.norm()`) certainly fails when:

* it reads `p.grad` where `p`, bound nowhere else in its scope, is the loop variable of a
  `for` loop or comprehension over `M.parameters()`, `M.named_parameters()` (`for name, p`)
  or a submodule's (`M.encoder.parameters()`: its parameters are among M's);
* a statement `R.zero_grad()` (no argument, or `set_to_none=True` written out; never
  `set_to_none=False`, which leaves zeros) of the same scope comes before it, where `R` is
  either `M` itself, bound once in that scope to a module built there (`unfilled_grads`
  `built_in_scope`) in a file that defines no `zero_grad` of its own, or a name bound once
  in that scope to a torch optimizer made over `M.parameters()` (`torch.optim.Adam(
  M.parameters(), lr=...)`), `M` being bound at most once there (or a parameter of the
  function that it never rebinds): the optimizer holds the very tensors the read walks;
* nothing on the way from that statement to the read may run backward or assign a `.grad`
  (the path rules of `unfilled_grads`: an unknown call, a forward of unknown code, an
  `optimizer.step(closure)` all may), so on every iteration that reaches the read its
  gradient is the None the reset left.

The same holds one call down: a helper reading the gradients of the module it is handed
on entry (`log_grads(model)`, see `handed_leaves`) called after such a reset of the module
passed. Anything else (a custom optimizer class, an optimizer over other tensors, a read
guarded by `if p.grad is not None`, a backward or an unknown call in between) stays
unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradguard.analysis.events import GradRead
from gradguard.analysis.model import LoopNode
from gradguard.analysis.names import parameter_names
from gradguard.analysis.walk import module_nodes_of

if TYPE_CHECKING:
    from gradguard.analysis.unfilled_grads import Paths

Found = tuple[ast.stmt, str, LoopNode | None]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# Whether every call of a function passes for its parameter `receiver` a torch optimizer
# made over the parameters of what it passes for `module` (`handed_leaves`).
HandedOptimizer = Callable[[FunctionNode, str, str], bool]


def reset_read(paths: Paths, use: GradRead, handed: HandedOptimizer) -> Found | None:
    """The reset (`optimizer.zero_grad()`) the read `p.grad` of `use` follows with nothing
    that may run backward in between, its receiver, and the loop whose first iteration the
    read relies on (None: every iteration), when there is one (see the module docs)."""
    if not isinstance(use.target, ast.Name):
        return None
    module = _walked_module(paths, use.target.id, use.stmt)
    if module is None:
        return None
    return reset_before(paths, module, use.stmt, use.node, handed)


def reset_before(
    paths: Paths, module: str, stmt: ast.stmt, node: ast.AST, handed: HandedOptimizer
) -> Found | None:
    """A statement of the scope of `stmt` resetting the gradients of the module bound to
    `module` there, from which no backward can run before `node` (in `stmt`) is reached."""
    from gradguard.analysis.unfilled_grads import scope_nodes

    scope = paths.scope_of(stmt)
    nodes = list(scope_nodes(scope))
    if not _bound_once(scope, nodes, module):
        return None
    for reset in nodes:
        if not isinstance(reset, ast.Expr):
            continue
        receiver = _reset_receiver(reset)
        if receiver is None:
            continue
        if receiver == module:
            if not _module_reset(paths, module, reset):
                continue
        elif isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and _bound_once(
            scope, nodes, receiver, bound=False
        ):
            if not handed(scope, receiver, module):
                continue  # an optimizer handed down: what do the callers pass?
        elif not optimizer_in_scope(paths, nodes, receiver, module):
            continue
        clean, loop = paths.clean_until(reset, stmt, node)
        if clean:
            return reset, f"{receiver}.zero_grad()", loop
    return None


def _walked_module(paths: Paths, name: str, stmt: ast.stmt) -> str | None:
    """`M` when `name` is bound, only, by a loop over `M.parameters()` (see module docs)."""
    from gradguard.analysis.unfilled_grads import binds, scope_nodes

    nodes = list(scope_nodes(paths.scope_of(stmt)))
    bindings = [node for node in nodes if binds(node, name)]
    return walked_parameters(nodes, bindings[0], nested=True) if len(bindings) == 1 else None


def walked_parameters(nodes: list[ast.AST], binding: ast.AST, *, nested: bool) -> str | None:
    """`M` when `binding` is the loop variable of a `for` loop or comprehension among
    `nodes` walking `M.parameters()` or `M.named_parameters()` (`for name, p in ...`);
    with `nested`, also a submodule's (`M.encoder.parameters()`)."""
    for node in nodes:
        if not isinstance(node, ast.For | ast.comprehension):
            continue
        target = node.target
        pair = isinstance(target, ast.Tuple) and len(target.elts) == 2
        if binding is (target.elts[1] if isinstance(target, ast.Tuple) and pair else target):
            return parameters_owner(node.iter, "named_parameters" if pair else "parameters", nested)
    return None


def parameters_owner(expr: ast.expr, method: str, nested: bool) -> str | None:
    """`M` of `M.<method>()`, also of `M.sub.<method>()` when `nested`."""
    if not (
        isinstance(expr, ast.Call)
        and not expr.args
        and not expr.keywords
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == method
    ):
        return None
    owner = expr.func.value
    while nested and isinstance(owner, ast.Attribute):
        owner = owner.value
    return owner.id if isinstance(owner, ast.Name) else None


def _reset_receiver(stmt: ast.Expr) -> str | None:
    """`R` of a statement `R.zero_grad()` (or `R.zero_grad(set_to_none=True)`), R a name."""
    if not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "zero_grad"
        and isinstance(func.value, ast.Name)
        and not call.args
    ):
        return None
    for keyword in call.keywords:
        if not (
            keyword.arg == "set_to_none"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value is True
        ):
            return None
    return func.value.id


def _module_reset(paths: Paths, module: str, at: ast.stmt) -> bool:
    """`module.zero_grad()` resets every gradient of the module: one built in the scope,
    in a file that defines no `zero_grad` of its own."""
    if any(
        node.name == "zero_grad" for node in module_nodes_of(paths.analysis.tree, ast.FunctionDef)
    ):
        return False  # a class of the file may clear gradients its own way
    return paths.built_in_scope(module, at) is not None


def optimizer_in_scope(paths: Paths, nodes: list[ast.AST], receiver: str, module: str) -> bool:
    """`receiver` is bound once among `nodes` (a scope's) to a torch optimizer made over
    `module.parameters()`."""
    from gradguard.analysis.unfilled_grads import binds

    if sum(1 for node in nodes if binds(node, receiver)) != 1:
        return False
    for node in nodes:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == receiver for target in node.targets
        ):
            return _optimizer_over(paths, node.value, module)
    return False


def _optimizer_over(paths: Paths, expr: ast.expr, module: str) -> bool:
    """`torch.optim.X(M.parameters(), ...)`: a torch optimizer over the module's parameters."""
    if not isinstance(expr, ast.Call) or not expr.args:
        return False
    qualified = paths.torch.get(id(expr), "")
    if not qualified.startswith("torch.optim.") or qualified.count(".") != 2:
        return False
    return parameters_owner(expr.args[0], "parameters", nested=False) == module


def _bound_once(scope: ast.AST, nodes: list[ast.AST], name: str, *, bound: bool = True) -> bool:
    """`name` holds one object throughout the scope: a parameter of the function never
    rebound, or (with `bound`) a name bound once there."""
    from gradguard.analysis.unfilled_grads import binds

    count = sum(1 for node in nodes if binds(node, name))
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and name in parameter_names(scope):
        return count == 0
    return bound and count == 1

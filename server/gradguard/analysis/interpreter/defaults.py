"""What a parameter holds when a call leaves it out: its default's value.

Python evaluates a default once, when the `def` runs, in the scope enclosing the `def`
(the class body for a method); every call that leaves the parameter out gets that very
object. So a default is known when its expression means the same thing whenever the `def`
runs:

* a literal (`return_tensor=True`, `reduction="mean"`);
* a tuple display of literals, nested or not (`scales=(1, 2)`, `betas=(0.9, 0.999)`,
  `pad=((0, 1), (0, 1))`): a tuple cannot change, so every call leaving the parameter out
  sees those very elements (a list display can: a call may append to it, and the next
  call sees that, so it stays unknown);
* a torch.nn class called with literal arguments only (`loss_func=nn.CrossEntropyLoss()`,
  `act=nn.ReLU(inplace=True)`), its name resolved through the imports of the enclosing
  scope: the module it builds is of that class whatever runs before. The value is the one
  the interpreter gives that constructor anywhere (a torch.nn module; anything else it
  builds, such as a tensor, is not kept).

Anything else (a name, a call of the file's own code, an optimizer, which needs parameters)
is unknown: a value that depends on what ran before the `def`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.analysis.call_sites import parameter_defaults
from gradguard.analysis.imports import Scope
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.values import Kind, Value, literal

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter


def default_values(module: ModuleInterpreter, node: FunctionNode) -> dict[str, Value]:
    """Each parameter of `node` whose default is known (see the module docs), with the
    value every call leaving it out binds to it."""
    known: dict[str, Value] = {}
    enclosing: Scope | None = None
    for name, default in parameter_defaults(node).items():
        if isinstance(default, ast.Constant):
            known[name] = literal(default)
            continue
        if enclosing is None:
            owner = module.parent_scope.get(id(node), module.tree)
            enclosing = module.scope_of(owner)
        literals = _literal_tuple(default)
        if not literals and not _torch_module_built(default, enclosing):
            continue
        scratch = FunctionInterpreter(module, enclosing, None, record=False)
        value = scratch.eval(default)
        if literals or value.kind is Kind.MODULE:
            known[name] = value
    return known


def _torch_module_built(expr: ast.expr, scope: Scope) -> bool:
    """`expr` calls a torch.nn class (a capitalised name under `torch.nn`) with literal
    arguments only."""
    if not isinstance(expr, ast.Call):
        return False
    qualified = scope.resolve(expr.func)
    if qualified is None or not qualified.startswith("torch.nn."):
        return False
    if not qualified.rsplit(".", 1)[-1][:1].isupper():
        return False
    values = [*expr.args, *(kw.value for kw in expr.keywords)]
    if any(kw.arg is None for kw in expr.keywords):
        return False
    return all(_literal(value) for value in values)


def _literal(expr: ast.expr) -> bool:
    """A constant, or a negated number (`-1`)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        expr = expr.operand
    return isinstance(expr, ast.Constant)


def _literal_tuple(expr: ast.expr) -> bool:
    """A tuple display whose every element is a literal (`_literal`) or such a tuple."""
    return isinstance(expr, ast.Tuple) and all(
        _literal(element) or _literal_tuple(element) for element in expr.elts
    )

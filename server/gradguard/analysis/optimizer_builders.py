"""Functions of the file that only build an optimizer on the parameters of the module given.

    def build_optimizer(model, lr):
        return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

`opt = build_optimizer(net, 0.1)` is `opt = torch.optim.SGD(net.parameters(), ...)`: the
optimizer holds exactly the parameters `net` has at the call. That is certain when the
function does nothing else: undecorated, its body (a docstring aside) one `return` of a
`torch.optim` construction whose parameters are `<p>.parameters()` on one of its own
parameters `p`, which the function mentions nowhere else (so `p` is the caller's
argument, untouched). Anything else (a parameter filter, groups, a second statement) is
not such a builder.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from gradguard.analysis import torch_api as api
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import parameter_names, passed_keyword
from gradguard.analysis.walk import walk


@dataclass(frozen=True)
class OptimizerBuilder:
    """A function returning `torch.optim.<name>(<parameter>.parameters(), ...)`."""

    construction: ast.Call
    qualified: str  # `torch.optim.SGD`
    parameter: str  # the parameter whose module's parameters it holds


def optimizer_builder(
    function: FunctionNode, resolve: Callable[[ast.expr], str | None]
) -> OptimizerBuilder | None:
    """What `function` builds when it is an optimizer builder (see the module docstring);
    `resolve` gives the qualified name of an expression in the function's scope."""
    if function.decorator_list or isinstance(function, ast.AsyncFunctionDef):
        return None
    body = function.body
    if body and _docstring(body[0]):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    built = body[0].value
    if not isinstance(built, ast.Call):
        return None
    qualified = resolve(built.func)
    if qualified is None or not api.optimizer_class(qualified):
        return None
    params: ast.expr | None = built.args[0] if built.args else None
    keyword = passed_keyword(built, "params")
    if keyword is not None:
        params = keyword.value
    if not (
        isinstance(params, ast.Call)
        and isinstance(params.func, ast.Attribute)
        and params.func.attr == "parameters"
        and isinstance(params.func.value, ast.Name)
        and not params.args
        and not params.keywords
    ):
        return None
    owner = params.func.value
    if owner.id not in parameter_names(function):
        return None
    mentions = [n for n in walk(function) if isinstance(n, ast.Name) and n.id == owner.id]
    if mentions != [owner]:
        return None
    return OptimizerBuilder(built, qualified, owner.id)


def _docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )

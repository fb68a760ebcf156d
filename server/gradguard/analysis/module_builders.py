"""Functions of the file whose every result is a module they build right there.

    def mlp(width):
        return nn.Sequential(nn.Linear(20, width), nn.ReLU(), nn.Linear(width, 5))

    def make_encoder(dim):
        net = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        net.apply(init_weights)
        return net

`student = mlp(16)` binds a new module, as `student = nn.Sequential(...)` would: each call
runs the constructions again, so two calls never share a parameter, and what the name holds
is a module, never a loss or a tensor. That is certain when the function is a plain `def`
(undecorated, not async, not a generator: a decorator may return something else, a
generator returns a generator), its body ends in a `return`, and every `return` in it (not
in nested functions or classes) returns either

* a construction (a call `constructs` accepts: what the caller counts as building a
  module), or
* a plain name of the function that it binds only by plain `name = <construction>`
  assignments (`net = nn.Sequential(...)`, also re-bound by a method returning the module
  itself, `net = net.to(device)`), never declared `global`/`nonlocal` and never a parameter,
  or such a method called on such a name (`return net.to(device)`).

A method called on the name in between (`net.apply(init)`) does not change which object
the name holds. Anything else (a `return` of a parameter, of an attribute, of a call of
another function, a bare `return`) is not such a builder.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradguard.analysis import torch_api as api
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import parameter_names
from gradguard.analysis.walk import own_nodes

# Nodes binding a name given as a string, not as an `ast.Name`.
_NAMING_NODES = (ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)


def builds_module(function: FunctionNode, constructs: Callable[[ast.Call], bool]) -> bool:
    """True when every call of `function` returns a module it builds right there (see the
    module docstring); `constructs` tells a module construction."""
    if function.decorator_list or isinstance(function, ast.AsyncFunctionDef):
        return False
    if not function.body or not isinstance(function.body[-1], ast.Return):
        return False
    nodes = list(own_nodes(function.body))
    if any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Global | ast.Nonlocal) for n in nodes):
        return False
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    spec = function.args
    parameters = {*parameter_names(function), *(a.arg for a in (spec.vararg, spec.kwarg) if a)}
    return all(_built(r.value, nodes, parameters, constructs) for r in returns)


def _built(
    value: ast.expr | None,
    nodes: list[ast.AST],
    parameters: set[str],
    constructs: Callable[[ast.Call], bool],
) -> bool:
    """`value` (a returned expression) is certainly a module built in the function."""
    if isinstance(value, ast.Call) and _recast_name(value) is not None:
        value = _recast_name(value)  # `return net.to(device)`: the module `net` holds
    elif isinstance(value, ast.Call):
        return constructs(value)
    if not isinstance(value, ast.Name) or value.id in parameters:
        return False
    bound = _bound_values(value.id, nodes)
    if not bound:
        return False
    return all(_construction_or_recast(b, value.id, constructs) for b in bound)


def _bound_values(name: str, nodes: list[ast.AST]) -> list[ast.expr] | None:
    """The values of the plain `name = value` assignments binding `name` among `nodes`;
    None when something else binds it (a loop, a `with`, an augmented or unpacking
    assignment, a walrus, an import, a nested definition, `except ... as`, a match
    capture, a `del`); None or empty may both mean "not such a name"."""
    values: list[ast.expr] = []
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    if len(node.targets) != 1:
                        return None
                    values.append(node.value)
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Del):
            return None
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            if not _plain_target(node, nodes):
                return None
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return None
        elif isinstance(node, ast.alias) and (node.asname or node.name) == name:
            return None
        elif isinstance(node, _NAMING_NODES) and name in (
            getattr(node, "name", None),
            getattr(node, "rest", None),
        ):
            return None  # `except E as name`, `case [*name]`, `case {**name}`
    return values


def _plain_target(name: ast.Name, nodes: list[ast.AST]) -> bool:
    """`name` is the whole target of a plain single-target assignment among `nodes`."""
    return any(
        isinstance(n, ast.Assign) and len(n.targets) == 1 and n.targets[0] is name for n in nodes
    )


def _construction_or_recast(
    value: ast.expr, name: str, constructs: Callable[[ast.Call], bool]
) -> bool:
    """A module construction, or `name.to(device)` and the like on the name itself (the
    same module: `torch_api.MODULE_SELF_METHODS`)."""
    if not isinstance(value, ast.Call):
        return False
    recast = _recast_name(value)
    if recast is not None:
        return recast.id == name
    return constructs(value)


def _recast_name(call: ast.Call) -> ast.Name | None:
    """`net` of `net.to(device)`, `net.train()`, `net.apply(init)`: an `nn.Module` method
    returning the module itself (`torch_api.MODULE_SELF_METHODS`); None otherwise."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in api.MODULE_SELF_METHODS
        and isinstance(func.value, ast.Name)
    ):
        return func.value
    return None

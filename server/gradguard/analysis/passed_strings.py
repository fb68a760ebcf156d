"""Parameters every call fills with strings no code can change while the function runs.

`def freeze(model, prefixes): ... if any(name.startswith(p) for p in prefixes)` tests the
names of a model's parameters against what its callers pass. What the analysis knows of
`prefixes` in the function's run is what every call passes (`call_sites`), but a list may be
changed after it was evaluated at the call, through another name for it. The strings are
certain when, for every call of the function in the file (a `call_sites.candidates`
function: every mention of it is a call, so the file shows them all), the expression
passed for the parameter (or, left out, its default) is:

* a string literal, or a tuple display of them (immutable);
* a list display of string literals: a fresh list, which only the parameter holds; or
* `D["key"]` of a module-level settings dict no code of the file changes, nor any part of
  (`constant_dicts.unchanged_dicts`), not shadowed where the call is;

no `*args` or `**kwargs` of the call may fill it instead, and the function never rebinds
the parameter and only reads it by iterating it, testing membership in it or handing it
to `str.startswith`/`endswith` (`parameter_names.only_read_in`): so it cannot change a
list it holds either. Then the parameter holds, wherever the function reads it, strings
equal to those some call passed.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from gradguard.analysis.call_sites import Candidate, candidates
from gradguard.analysis.names import (
    arguments_by_parameter,
    kept_parameters,
    local_binding_counts,
)
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.parameter_names import only_read_in
from gradguard.analysis.walk import module_nodes_of, module_parents

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def strings_passed(
    tree: ast.Module, function: FunctionNode, name: str, unchanged: Collection[str]
) -> bool:
    """Whether every call of `function` (of the module `tree`) fills its parameter `name`
    with strings no code can change while the function runs (see the module docs);
    `unchanged`: the module's settings dicts nothing changes."""
    if name not in kept_parameters(function) or not only_read_in(function, name):
        return False
    candidate = _candidates(tree).get(id(function))
    if candidate is None:
        return False
    calls = _calls_by_id(tree)
    for key in candidate.calls:
        call = calls.get(key)
        if call is None or not _passes_strings(tree, candidate, call, name, unchanged):
            return False
    return True


@cached_by_node
def _candidates(tree: ast.Module) -> dict[int, Candidate]:
    return candidates(tree)


@cached_by_node
def _calls_by_id(tree: ast.Module) -> dict[int, ast.Call]:
    return {id(call): call for call in module_nodes_of(tree, ast.Call)}


def _passes_strings(
    tree: ast.Module, candidate: Candidate, call: ast.Call, name: str, unchanged: Collection[str]
) -> bool:
    function = candidate.node
    if any(keyword.arg is None for keyword in call.keywords):
        return False  # `**options` may fill it
    passed = arguments_by_parameter(function, call, skip_self=candidate.is_method)
    if passed is None:
        return False
    expr = passed.get(name)
    if expr is None:
        expr = _default(function, name)
        return expr is not None and _immutable_strings(expr)
    if _immutable_strings(expr) or _fresh_strings(expr):
        return True
    return (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.value, ast.Name)
        and expr.value.id in unchanged
        and isinstance(expr.slice, ast.Constant)
        and isinstance(expr.slice.value, str)
        and not _shadowed(tree, call, expr.value.id)
    )


def _immutable_strings(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    return isinstance(expr, ast.Tuple) and all(_immutable_strings(e) for e in expr.elts)


def _fresh_strings(expr: ast.expr) -> bool:
    return isinstance(expr, ast.List) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts
    )


def _default(function: FunctionNode, name: str) -> ast.expr | None:
    """The default of parameter `name` (None: it has none)."""
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args]
    offset = len(positional) - len(spec.defaults)
    for index, param in enumerate(positional):
        if param.arg == name:
            return spec.defaults[index - offset] if index >= offset else None
    for param, default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
        if param.arg == name:
            return default
    return None


def _shadowed(tree: ast.Module, node: ast.AST, name: str) -> bool:
    """Whether a function (or class body) around `node` binds `name` itself."""
    parents = module_parents(tree)
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
            if name in local_binding_counts(current):
                return True
        elif isinstance(current, ast.Lambda | ast.ClassDef):
            return True  # not followed: taken as binding it
        elif isinstance(current, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            targets = (n for g in current.generators for n in ast.walk(g.target))
            if any(isinstance(n, ast.Name) and n.id == name for n in targets):
                return True
        current = parents.get(id(current))
    return False

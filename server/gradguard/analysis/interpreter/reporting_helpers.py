"""Functions that hand what they are given to a helper of the file which reports in context.

A run in context (`context_runs`) reports what a loss or a checkpoint is given inside the
function it runs (`contextual.reports_in_context`: GG110-GG113). A model's `forward` often
leaves the checkpoint to a small method (`def run_stage(self, stage, x): if
self.use_checkpoint: return checkpoint(stage, x) ...`) called as `self.run_stage(stage, x)`:
what the checkpoint is given is then decided two calls up, by what the model is called with.
Such a `forward` calls a helper that reports in context (`calls_reporting_helper`), so a
call of it with known arguments is run in context too; inside that run, the helper, being
short (`short_reporting_helper`), is run once more with the arguments `forward` hands it.
That inner run starts no other (one more level, as for a helper given an inference tensor).

A helper counts when it is found for certain: `self.name(...)` of a method the class of
the caller defines or inherits from a class of the file, or `name(...)` of a function the
module binds once, by one `def` at its top level.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradguard.analysis.interpreter.contextual import reports_in_context
from gradguard.analysis.interpreter.methods import class_methods, inherited_method
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import first_parameter
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import module_nodes_of, own_nodes

if TYPE_CHECKING:
    from gradguard.analysis.interpreter.module import ModuleInterpreter

__all__ = ["calls_reporting_helper", "short_reporting_helper"]

# The statements a reporting helper run inside another run may have (nested ones counted).
_SHORT_STATEMENTS = 8


def calls_reporting_helper(module: ModuleInterpreter, function: FunctionNode) -> bool:
    """Whether `function` calls, by `self.name(...)` or by a top-level function's name, a
    function of the file that reports in context and is short enough to be run inside a
    run of `function`."""
    owner = _classes_of_methods(module.tree).get(id(function))
    for name, on_self in _called_names(function):
        if on_self:
            if owner is None:
                continue
            helper = class_methods(owner).get(name) or inherited_method(module, owner, name)
        else:
            helper = _top_level_functions(module.tree).get(name)
        if helper is None or helper is function or not short_reporting_helper(helper):
            continue
        # Bound once: asked last, the whole module is read only for a qualifying helper.
        if on_self or name not in _bound_names(module.tree):
            return True
    return False


@cached_by_node
def short_reporting_helper(function: FunctionNode) -> bool:
    """A function that reports in context (calls a loss or a checkpoint by name...) and
    has at most `_SHORT_STATEMENTS` statements."""
    if not reports_in_context(function):
        return False
    statements = sum(1 for node in own_nodes(function.body) if isinstance(node, ast.stmt))
    return statements <= _SHORT_STATEMENTS


@cached_by_node
def _called_names(function: FunctionNode) -> tuple[tuple[str, bool], ...]:
    """The names `function`'s own code calls as `self.name(...)` (True) or `name(...)`."""
    found: dict[tuple[str, bool], None] = {}
    self_name = first_parameter(function)
    for node in own_nodes(function.body):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            found[(func.id, False)] = None
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and self_name is not None
            and func.value.id == self_name
        ):
            found[(func.attr, True)] = None
    return tuple(found)


@cached_by_node
def _classes_of_methods(tree: ast.Module) -> dict[int, ast.ClassDef]:
    """The class each method of the file is defined in, by the method's id (plain methods:
    not static or class methods, whose first parameter is not the instance)."""
    found: dict[int, ast.ClassDef] = {}
    for owner in module_nodes_of(tree, ast.ClassDef):
        for method in class_methods(owner).values():
            if not any(_names(d, ("staticmethod", "classmethod")) for d in method.decorator_list):
                found[id(method)] = owner
    return found


@cached_by_node
def _top_level_functions(tree: ast.Module) -> dict[str, FunctionNode]:
    """Functions the module's top level defines by one `def` (whether another binding of
    the name exists elsewhere is `_bound_names`)."""
    defined: dict[str, list[FunctionNode]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            defined.setdefault(stmt.name, []).append(stmt)
    return {name: functions[0] for name, functions in defined.items() if len(functions) == 1}


@cached_by_node
def _bound_names(tree: ast.Module) -> frozenset[str]:
    """Every name a statement of the module (at any depth) binds as a plain name or by an
    import. The union of each part's names: an edit inside one function is checked on
    that function alone (`gradguard.analysis.incremental`)."""
    stored = {node.id for node in module_nodes_of(tree, ast.Name) if type(node.ctx) is not ast.Load}
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for node in module_nodes_of(tree, ast.Import, ast.ImportFrom)
        for alias in node.names
    }
    return frozenset(stored | imported)


def _names(expr: ast.expr, names: tuple[str, ...]) -> bool:
    return isinstance(expr, ast.Name) and expr.id in names

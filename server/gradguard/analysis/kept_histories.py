"""Lists an instance keeps for its whole life and that grow on every call of a method:
`self.history = []` in `__init__`, `self.history.append(loss)` in `record()`, and
`self.record(...)` called on every iteration of a loop of another method of the class.

Such a list is one object from construction on: nothing in the file rebinds it, clears it or
takes items out of it, so everything appended to it stays referenced for as long as the
instance lives. An append that runs on every call of a method, called on every iteration of
a loop, adds one more item per iteration. This is what keeps an appended tensor (and,
when it has history, its whole graph) alive across iterations, the same way a list bound
before a loop does, only held on `self` and filled one call at a time.

An attribute qualifies when it is an appended list of its class
(`appended_state.appended_lists`: the file shows every change of it, the only changes are
appends, every read keeps no other reference) and, further:

* its only store in the file is the `self.<attr> = []` of `__init__` (a store in another
  method may empty it each epoch or each batch);
* no mention of the name calls a method that takes items out (`pop`, `clear`).

A call `self.<method>(...)` runs on every iteration of a loop when it is the whole of an
expression statement, or the value of one (`self.record(self.step(x))`), straight in the
loop's body (not in a branch), in a loop with no `continue`, in a method of the same class.
The loop may also be outside the class (in `main()`, at module level), calling
`trainer.<method>(...)` on a name that certainly holds an instance: bound once in that
scope, by `trainer = Trainer(...)` of the module-level class, whose name nothing rebinds.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from gradguard.analysis.appended_state import appended_lists, attribute_mentions
from gradguard.analysis.imports import build_scope
from gradguard.analysis.list_members import SHRINKING
from gradguard.analysis.model import FunctionNode, LoopNode
from gradguard.analysis.names import binding_counts, first_parameter, local_binding_counts
from gradguard.analysis.walk import (
    innermost_function,
    module_nodes_of,
    module_parents,
    own_nodes,
    walk,
    within,
)


def kept_lists(
    tree: ast.Module, cls: ast.ClassDef, resolve: Callable[[ast.expr], str | None]
) -> frozenset[str]:
    """The attributes of `cls` that hold one list for the instance's whole life and only
    grow (see the module docstring). `resolve` gives an expression's qualified name through
    the file's imports."""
    appended = appended_lists(tree, cls, resolve)
    return frozenset(attr for attr in appended if _only_grows(tree, attr))


def kept_list_class(tree: ast.Module, method: FunctionNode, attr: str) -> ast.ClassDef | None:
    """The class `method` is defined in, when `attr` is one of its kept lists (names
    resolved through the module's imports); else None."""
    cls = module_parents(tree).get(id(method))
    if not isinstance(cls, ast.ClassDef):
        return None
    return cls if attr in kept_lists(tree, cls, build_scope(tree, None).resolve) else None


def may_feed_a_backward(tree: ast.Module, attr: str, backward_scopes: set[int]) -> bool:
    """Whether a backward may run through the list `attr`: some code reading the name
    (`<anything>.<attr>`, other than to append to it) is a function (or the module body)
    whose id is in `backward_scopes` (those running a backward), or returns a value, which
    a backward elsewhere may run on (`return torch.stack(self.history).sum()`)."""
    parents = module_parents(tree)
    for node in attribute_mentions(tree, attr):
        outer = parents.get(id(node))
        if isinstance(outer, ast.Attribute) and outer.attr == "append":
            continue  # appending to the list runs no backward through it
        scope: ast.Module | FunctionNode = innermost_function(node, parents) or tree
        if id(scope) in backward_scopes:
            return True
        if any(isinstance(n, ast.Return) and n.value is not None for n in own_nodes(scope.body)):
            return True
    return False


def _only_grows(tree: ast.Module, attr: str) -> bool:
    """Whether the file stores `attr` once (the `__init__` store `appended_lists` requires)
    and calls no shrinking method on it."""
    stores = 0
    for node in attribute_mentions(tree, attr):
        if not isinstance(node.ctx, ast.Load):
            stores += 1
        elif _receiver_of_shrinking(tree, node):
            return False
    return stores == 1


def _receiver_of_shrinking(tree: ast.Module, node: ast.Attribute) -> bool:
    """`node` is the receiver of `.pop()`, `.clear()` or `.remove()`: a list it is called on
    does not keep everything."""
    outer = module_parents(tree).get(id(node))
    return isinstance(outer, ast.Attribute) and outer.attr in SHRINKING


def runs_on_every_call(method: FunctionNode, stmt: ast.stmt) -> bool:
    """Whether `stmt` is a statement straight in `method`'s body, before which no statement
    may return: it runs on every call that does not raise."""
    for own in method.body:
        if own is stmt:
            return True
        if any(isinstance(node, ast.Return | ast.Raise) for node in walk(own)):
            return False
    return False


def looped_calls(tree: ast.Module, cls: ast.ClassDef, method: FunctionNode) -> list[LoopNode]:
    """The loops on whose every iteration `<instance>.<method>(...)` is called on an
    instance of `cls`: `self.<method>(...)` in loops of methods of `cls`, and
    `trainer.<method>(...)` in any loop of the file where `trainer` certainly holds an
    instance of `cls` (`_instance_names`); see the module docstring."""
    loops: list[LoopNode] = []
    for caller in cls.body:
        if not isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        me = first_parameter(caller)
        if me is not None:
            loops.extend(_loops_calling(walk(caller), {me}, method.name))
    parents = module_parents(tree)
    if parents.get(id(cls)) is not tree:
        return loops
    scopes: dict[int, tuple[ast.Module | FunctionNode, list[LoopNode]]] = {}
    for loop in module_nodes_of(tree, ast.For, ast.AsyncFor, ast.While):
        assert isinstance(loop, ast.For | ast.AsyncFor | ast.While)
        scope: ast.Module | FunctionNode = innermost_function(loop, parents) or tree
        if scope is tree or not within(scope, cls):
            scopes.setdefault(id(scope), (scope, []))[1].append(loop)
    module_counts = binding_counts(own_nodes(tree.body))
    if module_counts.get(cls.name) != 1:
        return loops  # the class's name may hold something else
    declared = {name for node in module_nodes_of(tree, ast.Global) for name in node.names}
    for scope, scoped in scopes.values():
        counts = module_counts if isinstance(scope, ast.Module) else local_binding_counts(scope)
        names = _instance_names(scope, cls.name, counts, declared)
        if names:
            loops.extend(_loops_calling(scoped, names, method.name))
    return loops


def _loops_calling(nodes: Iterable[ast.AST], names: set[str], method: str) -> list[LoopNode]:
    """The loops among `nodes`, without a `continue`, a statement straight in whose body
    calls `<name>.<method>(...)` for one of `names`."""
    return [
        loop
        for loop in nodes
        if isinstance(loop, ast.For | ast.AsyncFor | ast.While)
        and not any(isinstance(node, ast.Continue) for node in walk(loop))
        and any(_calls(stmt, name, method) for stmt in loop.body for name in names)
    ]


def _instance_names(
    scope: ast.Module | FunctionNode, cls: str, counts: dict[str, int], declared: set[str]
) -> set[str]:
    """The names that certainly hold an instance of the module-level class named `cls`
    (which the module binds once, its class statement) throughout `scope` (a function, or
    the module body, whose binding `counts` are given): bound once there, by `name =
    Cls(...)`, declared `global` nowhere (`declared`), while a function `scope` does not
    bind `cls`."""
    if not isinstance(scope, ast.Module) and cls in counts:
        return set()
    return {
        stmt.targets[0].id
        for stmt in own_nodes(scope.body)
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == cls
        and counts.get(stmt.targets[0].id) == 1
        and stmt.targets[0].id not in declared
    }


def _calls(stmt: ast.stmt, me: str, name: str) -> bool:
    """`stmt` is `me.<name>(...)`, or an expression statement whose value calls
    `me.<name>(...)` outermost (`self.record(self.step(x))`)."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    func = stmt.value.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == name
        and isinstance(func.value, ast.Name)
        and func.value.id == me
    )

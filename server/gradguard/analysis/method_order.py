"""Which method of a class of the file certainly runs after another, on one instance.

`trainer = Trainer(...)`, then `trainer.load_embeddings(v)`, then `trainer.fit(loader)`:
whatever `load_embeddings` did to the instance's state is there when `fit` runs, and so
when every method `fit` calls on `self` runs. The fact is syntactic and certain only when
all of this holds (anything else: None):

* both calls are statements' calls of one function (or of the module's top level), on the
  same plain name, the later one starting on a line after the earlier one ends (in a loop
  body or after it alike: the later call runs after the earlier one at least once);
* every binding of that name there is `name = Cls(...)` of the class by its name, and the
  name is not a parameter of that function: the receiver is an instance of that class;
* the later method is the one asked for or reaches it through `self.<method>(...)` calls of
  the class's own methods (no inheritance is followed).
"""

from __future__ import annotations

import ast

from gradguard.analysis.walk import module_nodes_of, module_parents, own_nodes

_Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


def method_class(tree: ast.Module, function: ast.AST | None) -> ast.ClassDef | None:
    """The class of the file whose body defines `function` directly (a method), or None."""
    owner = module_parents(tree).get(id(function)) if function is not None else None
    return owner if isinstance(owner, ast.ClassDef) else None


def called_after(tree: ast.Module, cls: ast.ClassDef, first: str, then: str) -> ast.Call | None:
    """A call `v.<m>(...)` of a method `m` of `cls` that is or reaches `then`, made after a
    call `v.<first>(...)` on the same instance `v` of `cls` (see the module docstring): the
    first such call, or None."""
    reaching = _reaching(cls, then)
    scopes: list[_Scope] = [tree]
    scopes += module_nodes_of(tree, ast.FunctionDef, ast.AsyncFunctionDef)
    for scope in scopes:
        calls = [n for n in own_nodes(scope.body) if isinstance(n, ast.Call)]
        for early in calls:
            receiver = _method_receiver(early, {first})
            if receiver is None or not _instance_of(scope, receiver, cls.name):
                continue
            end = early.end_lineno or early.lineno
            for late in calls:
                if late.lineno > end and _method_receiver(late, reaching) == receiver:
                    return late
    return None


def _method_receiver(call: ast.Call, methods: set[str]) -> str | None:
    """`v` of `v.m(...)` for a method `m` among `methods`."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in methods
        and isinstance(func.value, ast.Name)
    ):
        return func.value.id
    return None


def _instance_of(scope: _Scope, name: str, cls: str) -> bool:
    """Every binding of `name` in `scope` is `name = cls(...)`, and there is one at least."""
    if not isinstance(scope, ast.Module):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        if any(a.arg == name for a in every):
            return False
    nodes = list(own_nodes(scope.body))
    bound = [n for n in nodes if isinstance(n, ast.Name) and n.id == name]
    stores = [n for n in bound if not isinstance(n.ctx, ast.Load)]
    constructions = {
        id(stmt.targets[0])
        for stmt in nodes
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == cls
    }
    if any(isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in nodes):
        return False
    return bool(stores) and all(id(n) in constructions for n in stores)


def _reaching(cls: ast.ClassDef, target: str) -> set[str]:
    """The methods of `cls` that are `target` or call it through `self.<m>(...)` chains."""
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
    found = {target}
    changed = True
    while changed:
        changed = False
        for name, method in methods.items():
            if name in found or not method.args.args:
                continue
            me = method.args.args[0].arg
            if any(
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in found
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == me
                for n in ast.walk(method)
            ):
                found.add(name)
                changed = True
    return found

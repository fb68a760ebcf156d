"""Where a module is switched between training and evaluation mode, directly or through a
function of the file, and which statements train it.

Syntactic and conservative. A call of a function of the file is followed into its body
(`validate(val_loader, model)` calls `model.eval()` on its parameter; `self.evaluate()`
calls `self.model.eval()`; `eval_epoch()` defined inside `main` switches the `model` of
`main`), binding its parameters to the caller's arguments. A plain name is resolved by
Python's scoping: a parameter or any other binding of it in an enclosing function leaves
the call unknown. A local alias (`model = self.model`, bound once: `local_aliases`) stands
for what it names, in the callee and in the caller. `model.train()`
anywhere a call may reach counts as a switch back to training mode (whatever its receiver,
so an alias is never missed), and so does a call of code the file does not define that is
given the model: that code may switch it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from gradguard.analysis.call_sites import transparent_decorators
from gradguard.analysis.model import FunctionNode
from gradguard.analysis.names import (
    callee_name,
    dotted,
    local_binding_counts,
    may_name_an_optimizer,
    parameter_names,
)
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import LEAVES, NESTED_CODE, children, module_nodes_of, own_nodes

# How many calls deep a function of the file is followed.
_DEPTH = 3

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@cached_by_node
def _local_functions(function: FunctionNode) -> dict[str, FunctionNode | None]:
    """The names `function`'s own scope binds: to the nested `def` that is their only
    binding (undecorated, or under grad-mode decorators that still run it), or None (a
    parameter, an assignment, an import, a second `def`, another decorator, a `global` or
    `nonlocal` declaration: not followed)."""
    counts = local_binding_counts(function)
    bound: dict[str, FunctionNode | None] = dict.fromkeys(counts)
    for node in own_nodes(function.body):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and counts[node.name] == 1
            and transparent_decorators(node)
        ):
            bound[node.name] = node
    return bound


def _binds_in_expression(scope: ast.AST, name: str) -> bool:
    """A lambda's parameter or a comprehension's loop variable named `name`."""
    if isinstance(scope, ast.Lambda):
        return name in parameter_names(scope)
    if isinstance(scope, _COMPREHENSIONS):
        return any(
            isinstance(n, ast.Name) and n.id == name
            for gen in scope.generators
            for n in ast.walk(gen.target)
        )
    return False


@dataclass(frozen=True)
class ModeSwitch:
    """`key.eval()` (or `key.train(False)`) run by `call`: the call itself, or a call of a
    function of the file that switches the module it is given (`via`). `key` is spelt as
    the scope around the call spells it, through its own alias when it has one."""

    call: ast.Call
    key: str
    via: FunctionNode | None
    # What a local alias `key` names in the scope (`self.model` for `model` after `model =
    # self.model`): the same module under its other spelling, or None.
    aliased: str | None = None


def switches_off(call: ast.Call) -> str | None:
    """The module key `call` puts in evaluation mode: `m.eval()`, `m.train(False)`,
    `m.train(mode=False)`."""
    func = call.func
    if not isinstance(func, ast.Attribute) or (key := dotted(func.value)) is None:
        return None
    if func.attr == "eval" and not call.args and not call.keywords:
        return key
    if func.attr == "train" and _literal_false(call):
        return key
    return None


def switches_on(call: ast.Call) -> bool:
    """`x.train()`, `x.train(True)`, `x.train(mode)`: anything but a literal False."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "train" and not _literal_false(call)


def _literal_false(call: ast.Call) -> bool:
    values = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    return len(values) == 1 and isinstance(values[0], ast.Constant) and values[0].value is False


@cached_by_node
def calls_in(node: ast.AST) -> tuple[ast.Call, ...]:
    """The calls in `node`, not those of functions or classes defined in it (cached per
    node: the rule asks again for every loop and every call of a function)."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = children(node)
    pop, push = stack.pop, stack.extend
    while stack:
        child = pop()
        if type(child) is ast.Name or type(child) in LEAVES or isinstance(child, NESTED_CODE):
            continue  # a Name holds only its context (a quarter of all nodes: not walked)
        if isinstance(child, ast.Call):
            found.append(child)
        push(children(child))
    return tuple(found)


@cached_by_node
def _calls_read(node: ast.AST) -> tuple[tuple[ast.Call, str | None, str | None], ...]:
    """The calls in `node` (`calls_in`), each with the module key it switches off
    (`switches_off`) and the name it calls (`callee_name`): every check of an edited file
    asks again about the nodes the edit left alone."""
    return tuple((call, switches_off(call), callee_name(call.func)) for call in calls_in(node))


def _switching_names(defs: tuple[FunctionNode, ...]) -> frozenset[str]:
    """The names of the file's functions that may switch a module to evaluation mode: by a
    call of their own, or by calling a function of such a name (a superset of what
    `ModeSwitches.switches` follows, by name only, at any depth: `ModeSwitches.resolve`
    finds only a function of the name the call spells, `callee_name`)."""
    called: dict[str, set[str]] = {}
    switching: set[str] = set()
    for node in defs:
        switches, own = _own_switch_calls(node)
        if switches:
            switching.add(node.name)
        called.setdefault(node.name, set()).update(own)
    grew = True
    while grew:
        grew = False
        for name, names in called.items():
            if name not in switching and not names.isdisjoint(switching):
                switching.add(name)
                grew = True
    return frozenset(switching)


@cached_by_node
def _own_switch_calls(function: FunctionNode) -> tuple[bool, frozenset[str]]:
    """Whether a function's own calls switch a module off, and the names it calls."""
    calls = calls_in(function)
    names = frozenset(name for call in calls if (name := callee_name(call.func)) is not None)
    return any(switches_off(call) is not None for call in calls), names


class ModeSwitches:
    """Functions of one file, resolved from their calls, and what they do to module modes."""

    def __init__(self, tree: ast.Module, parents: dict[int, ast.AST]) -> None:
        self.parents = parents
        # Answers by (id(node), depth): every loop and call asks them again.
        self._switches_on: dict[tuple[int, int], bool] = {}
        self._trains: dict[tuple[int, int], bool] = {}
        self._switched: dict[tuple[int, int], tuple[str, ...]] = {}
        self._resolved: dict[int, FunctionNode | None] = {}
        self.functions: dict[str, FunctionNode] = {}
        self.methods: dict[int, dict[str, FunctionNode]] = {}
        twice: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name in self.functions:
                    twice.add(node.name)
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.methods[id(node)] = {
                    s.name: s
                    for s in node.body
                    if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                }
        for name in twice:
            del self.functions[name]
        # Every name a `def` of the file binds: a call of any other name runs no function of
        # the file, whatever scopes it is called in (most calls: builtins, imports).
        defs = module_nodes_of(tree, ast.FunctionDef, ast.AsyncFunctionDef)
        self._def_names = {node.name for node in defs}
        self._switching = _switching_names(defs)

    def resolve(self, call: ast.Call) -> FunctionNode | None:
        """The function of the file `call` runs: `f(...)` for an `f` defined once in the
        nearest enclosing function that binds the name (`def _eval_epoch(): ...` inside
        `main`), else at module level; `self.m(...)` for a method `m` of the class around
        the call. (Answered once per call: every loop and caller asks again.)"""
        key = id(call)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(call)
        return self._resolved[key]

    def _resolve(self, call: ast.Call) -> FunctionNode | None:
        func = call.func
        if isinstance(func, ast.Name):
            return self._named(call, func.id)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and (owner := self._class_of(call)) is not None
        ):
            return self.methods.get(id(owner), {}).get(func.attr)
        return None

    def _named(self, call: ast.Call, name: str) -> FunctionNode | None:
        """What the plain name `name` called at `call` runs, by Python's scoping: the
        innermost enclosing function binding it decides (a nested `def` bound once, and
        nothing else: that function; any other binding: unknown); class bodies are not
        scopes of the code they hold; else the module-level function."""
        if name not in self._def_names:
            return None
        scope = self.parents.get(id(call))
        while scope is not None:
            if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                bound = _local_functions(scope)
                if name in bound:
                    return bound[name]
            elif _binds_in_expression(scope, name):
                return None
            scope = self.parents.get(id(scope))
        return self.functions.get(name)

    def instance_attribute(self, call: ast.Call, key: str) -> bool:
        """`self.criterion(out, y)` where the class around the call stores `criterion` on
        its instances (`self.criterion = ...` in its methods), defines no method of that
        name, and builds it from nothing that holds the module `key` (no `self`, no name the
        class stores as `key`): the callee is an object the instance holds, neither a method
        handed `self` nor one built around the model (`Validator(model)`)."""
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and (owner := self._class_of(call)) is not None
        ):
            return False
        if func.attr in self.methods.get(id(owner), {}):
            return False
        stored = _stored_on_self(owner)
        values = stored.get(func.attr)
        if not values:
            return False
        model_sources = {
            n.id
            for value in stored.get(key.removeprefix("self."), ())
            for n in ast.walk(value)
            if isinstance(n, ast.Name)
        }
        return not any(
            isinstance(n, ast.Name) and (n.id == "self" or n.id in model_sources)
            for value in values
            for n in ast.walk(value)
        )

    def _class_of(self, node: ast.AST) -> ast.ClassDef | None:
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.ClassDef):
            parent = self.parents.get(id(parent))
        return parent

    def bindings(self, call: ast.Call, function: FunctionNode) -> dict[str, str]:
        """Parameter name -> the key of the argument the call gives it (`self` attributes
        keep their spelling: a method shares them with its caller)."""
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if params and params[0] == "self" and isinstance(call.func, ast.Attribute):
            params = params[1:]
        found: dict[str, str] = {}
        if any(isinstance(a, ast.Starred) for a in call.args):
            return found
        for name, arg in zip(params, call.args, strict=False):
            if (key := dotted(arg)) is not None:
                found[name] = key
        for keyword in call.keywords:
            if keyword.arg is not None and (key := dotted(keyword.value)) is not None:
                found[keyword.arg] = key
        return found

    def switches(self, node: ast.AST) -> Iterator[ModeSwitch]:
        """Every switch to evaluation mode the calls in `node` make, as keys of the scope
        around `node`."""
        for call, key, name in _calls_read(node):
            if key is not None:
                yield ModeSwitch(call, key, None)
                continue
            if name not in self._switching:
                continue  # runs no function of the file that may switch a module off
            function = self.resolve(call)
            if function is None or self.may_switch_on(function):
                continue
            bound = self.bindings(call, function)
            for inner_key in self._switched_in(function, _DEPTH - 1):
                outer = _rebind(inner_key, bound, function)
                if outer is not None:
                    spelt = _as_alias(outer, node)
                    yield ModeSwitch(call, spelt, function, outer if spelt != outer else None)

    def _switched_in(self, function: FunctionNode, depth: int) -> tuple[str, ...]:
        """The modules `function` switches to evaluation mode, as it names them: by its own
        calls, or (`depth` calls deep) by a function of the file it calls that cannot switch
        anything back (`self._maybe_evaluate()` calling `self.evaluate()`). Answered once
        per function and depth (the depth falls on every call: no cycle reaches a question
        being answered)."""
        key = (id(function), depth)
        if key not in self._switched:
            self._switched[key] = tuple(self._switched_by_calls(function, depth))
        return self._switched[key]

    def _switched_by_calls(self, function: FunctionNode, depth: int) -> Iterator[str]:
        for inner in calls_in(function):
            key = switches_off(inner)
            if key is not None:
                yield key
                continue
            if depth <= 0 or callee_name(inner.func) not in self._switching:
                continue
            callee = self.resolve(inner)
            if callee is None or callee is function or self.may_switch_on(callee):
                continue
            bound = self.bindings(inner, callee)
            for deeper in self._switched_in(callee, depth - 1):
                outer = _rebind(deeper, bound, callee)
                if outer is not None:
                    yield outer

    def hands_over(self, call: ast.Call, key: str) -> bool:
        """True when `call` runs a function of the file that works on the module `key`: given
        as an argument, or read as the same global or `self` attribute."""
        function = self.resolve(call)
        if function is None:
            return False
        if key in self.bindings(call, function).values():
            return True
        head = key.partition(".")[0]
        if _rebind(key, {}, function) != key:
            return False
        return any(isinstance(n, ast.Name) and n.id == head for n in ast.walk(function))

    def may_switch_on(self, node: ast.AST, depth: int = _DEPTH) -> bool:
        """True when the code in `node`, or a function of the file it calls, may put a module
        back in training mode."""
        key = (id(node), depth)
        if key not in self._switches_on:
            self._switches_on[key] = False  # a call cycle proves nothing
            self._switches_on[key] = any(
                switches_on(call)
                or (
                    depth > 0
                    and (function := self.resolve(call)) is not None
                    and self.may_switch_on(function, depth - 1)
                )
                for call in calls_in(node)
            )
        return self._switches_on[key]

    def trains(self, node: ast.AST, depth: int = _DEPTH) -> bool:
        """True when the code in `node`, or a function of the file it calls, runs a backward
        pass or an optimizer step."""
        key = (id(node), depth)
        if key not in self._trains:
            self._trains[key] = False  # a call cycle proves nothing
            self._trains[key] = any(
                (isinstance(call.func, ast.Attribute) and _trains_here(call.func))
                or (
                    depth > 0
                    and (function := self.resolve(call)) is not None
                    and self.trains(function, depth - 1)
                )
                for call in calls_in(node)
            )
        return self._trains[key]


def _trains_here(func: ast.Attribute) -> bool:
    """`loss.backward()`, or `step()` on something named like an optimizer (`optimizer`,
    `self.optim`, `opt_g`); `env.step(action)` and `scheduler.step()` do not train."""
    if func.attr == "backward":
        return True
    receiver = (dotted(func.value) or "").rsplit(".", 1)[-1]
    return func.attr == "step" and may_name_an_optimizer(receiver)


def _rebind(key: str, bound: dict[str, str], function: FunctionNode) -> str | None:
    """A key of the callee (`model`, `model.module`, `self.net`) as the caller spells it: a
    local alias becomes what it names (`model = self.model`), a parameter becomes the
    caller's argument, `self` and a global stay as they are."""
    head, _, rest = key.partition(".")
    alias = local_aliases(function).get(head)
    if alias is not None:
        key = f"{alias}.{rest}" if rest else alias
        head, _, rest = key.partition(".")
    if head == "self":
        return key
    if head in bound:
        return f"{bound[head]}.{rest}" if rest else bound[head]
    arguments = function.args
    params = set(parameter_names(function))
    if arguments.vararg is not None or arguments.kwarg is not None or head in params:
        return None
    return key if head not in _local_names(function) else None


def _as_alias(key: str, scope: ast.AST) -> str:
    """`key` as the function `scope` spells it: through its own alias of the key's head
    (`self.model` is `model` after `model = self.model`) when exactly one alias names it."""
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return key
    for target in _heads(key):
        names = [name for name, value in local_aliases(scope).items() if value == target]
        if len(names) == 1:
            return names[0] + key[len(target) :]
        if names:
            return key
    return key


def _heads(key: str) -> list[str]:
    """`self.model` for `self.model.encoder`, and `self` (the key's leading parts, longest
    first, the key included)."""
    parts = key.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


@cached_by_node
def local_aliases(function: FunctionNode) -> dict[str, str]:
    """Local names that stand for one module all through `function`: `model = self.model`
    (or `model = net`, a parameter or a global), when the statement is a top-level statement
    of the function, the only binding of `model`, the named object is not rebound in the
    function (no `self.model = ...`, no other binding of `net`), and `self` is the
    function's first parameter. `model = self.model.module` or `copy.deepcopy(self.model)`
    is no alias (a part, a copy)."""
    counts = local_binding_counts(function)
    found: dict[str, str] = {}
    for stmt in function.body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(target := stmt.targets[0], ast.Name)
            and counts.get(target.id) == 1
            and not _declared(function, target.id)
        ):
            continue
        value = _aliased(function, stmt.value, counts)
        if value is not None:
            found[target.id] = value
    return found


def _aliased(function: FunctionNode, value: ast.expr, counts: dict[str, int]) -> str | None:
    """The key `value` names when it is `self.x`, a parameter or a global that `function`
    never rebinds (not `self.x = ...` either, nor `del self.x`, nested code included)."""
    params = parameter_names(function)
    if isinstance(value, ast.Name):
        name = value.id
        parameter = name in params and counts.get(name) == 1
        unbound = name not in counts and name not in _local_names(function)
        return name if (parameter or unbound) and not _declared(function, name) else None
    if not (
        isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == "self"
        and params[:1] == ["self"]
        and counts.get("self") == 1
        and not _declared(function, "self")
    ):
        return None
    key = f"self.{value.attr}"
    stored = any(
        (isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load) and dotted(n) == key)
        or (isinstance(n, ast.Call) and dotted(n.func) in ("setattr", "delattr"))
        for n in ast.walk(function)
    )
    return None if stored else key


def _declared(function: FunctionNode, name: str) -> bool:
    """`global name` or `nonlocal name` somewhere in `function` (nested code included)."""
    return any(
        isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in ast.walk(function)
    )


def _local_names(function: FunctionNode) -> set[str]:
    """Names the function binds itself (so they are not the module's globals)."""
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
    for node in ast.walk(function):
        if isinstance(node, ast.Global):
            found.difference_update(node.names)
    return found


@cached_by_node
def _stored_on_self(node: ast.ClassDef) -> dict[str, tuple[ast.expr, ...]]:
    """The values the methods of a class assign to each attribute of `self` (`self.x =
    v`, `self.x: T = v`); a value unpacked from a tuple (`self.a, self.x = ...`) counts as
    the whole right-hand side."""
    found: dict[str, list[ast.expr]] = {}
    for child in ast.walk(node):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(child, ast.Assign):
            targets, value = list(child.targets), child.value
        elif isinstance(child, ast.AnnAssign) and child.value is not None:
            targets, value = [child.target], child.value
        if value is None:
            continue
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id == "self"
                    and isinstance(part.ctx, ast.Store)
                ):
                    found.setdefault(part.attr, []).append(value)
    return {name: tuple(values) for name, values in found.items()}

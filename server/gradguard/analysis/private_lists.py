"""Local containers that can never be the container an attribute holds.

A module builder often fills a local list and hands it to a torch.nn container:

    stages = []
    for i, width in enumerate(widths):
        stages.append(Block(cin, width))
    self.stages = nn.ModuleList(stages)

`stages.append(...)` changes the local list, never the `nn.ModuleList` kept at
`self.stages`: `nn.ModuleList(stages)`, `nn.Sequential(*stages)` and their kin copy what they
are given into a container of their own (checked against torch 2.13.0: `ModuleList.__init__`
extends itself module by module, `Sequential.__init__` adds each argument under its own
name). The analysis keys "may some code change this container" by name
(`ModuleInterpreter.changed_containers`), so without this fact the local list's `append`
hid what `self.stages` holds (a loop `for stage in self.stages` in `forward`).

A name is *private* in a function when the list (or dict, set) it holds is certainly made
there and never leaves it:

* every binding of the name in the function assigns a display or comprehension made right
  there (`stages = []`, `cin, stages = 3, []`, `blocks = [Block() for _ in range(n)]`), or
  grows it in place (`stages += [...]`);
* the name is no parameter of the function, no global or nonlocal one, and no function,
  lambda or class nested in it mentions the name (a closure could keep the list);
* every read of the name changes or reads the list in place (`stages.append(b)`,
  `stages[0]`, `for s in stages`, a comprehension over it) or hands it to a call that only
  copies or counts its items (`nn.ModuleList(stages)`, `nn.Sequential(*stages)`,
  `len(stages)`, `torch.cat(stages)`...): never stored, returned, yielded, aliased or passed
  to any other call.

A change of a private name's container is then a change of no attribute's container.
"""

from __future__ import annotations

import ast

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import walk

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# Calls that copy or count the items of the container they are given, never keep it:
# torch.nn containers (by the class's name, under any module alias) and torch functions
# joining tensors, checked against torch 2.13.0.
_COPYING_ATTRIBUTES = frozenset(
    {"ModuleList", "Sequential", "ModuleDict", "ParameterList", "ParameterDict"}
    | {"stack", "cat", "concat", "concatenate", "hstack", "vstack"}
)
# Builtins (called by their plain name) that copy, count or iterate the items.
_COPYING_NAMES = _COPYING_ATTRIBUTES | frozenset(
    {"len", "list", "tuple", "sorted", "reversed", "enumerate", "zip", "sum", "any", "all"}
)

# Methods that change the container or module they are called on.
_CHANGING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update"}
    | {"setdefault", "add", "discard", "sort", "reverse", "__setitem__", "__delitem__"}
    | {"add_module", "register_module", "register_buffer", "register_parameter"}
)

_FRESH = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@cached_by_node
def private_names(function: FunctionNode) -> frozenset[str]:
    """The names of `function` that hold a container made there and kept to itself (see
    the module's docstring): changing it changes no attribute's container."""
    parents: dict[int, ast.AST] = {}
    nodes = walk(function)
    for node in nodes:
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    excluded = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    candidates: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Global | ast.Nonlocal):
            excluded.update(node.names)
        elif isinstance(node, _NESTED) and node is not function:
            excluded.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            if not isinstance(node, ast.Lambda):
                excluded.add(node.name)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                if not _kept_in(node, parents):
                    excluded.add(node.id)
            elif _freshly_bound(node, parents):
                candidates.add(node.id)
            else:
                excluded.add(node.id)
    return frozenset(candidates - excluded)


def _freshly_bound(name: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """`name = [...]`, `a, name = 3, {}`, `name += [...]`: bound to a container made right
    there, or grown in place (a `del` or any other binding is not)."""
    parent = parents.get(id(name))
    if isinstance(parent, ast.AugAssign):
        return parent.target is name
    value = _assigned_value(name, parents)
    return isinstance(value, _FRESH)


def _assigned_value(target: ast.expr, parents: dict[int, ast.AST]) -> ast.expr | None:
    """The expression a target of an assignment receives, followed through tuple and list
    targets matched element by element with a display of the same length."""
    parent = parents.get(id(target))
    if isinstance(parent, ast.Assign) and target in parent.targets:
        return parent.value
    if isinstance(parent, ast.Tuple | ast.List) and isinstance(parent.ctx, ast.Store):
        outer = _assigned_value(parent, parents)
        if not isinstance(outer, ast.Tuple | ast.List) or len(outer.elts) != len(parent.elts):
            return None
        if any(isinstance(e, ast.Starred) for e in (*outer.elts, *parent.elts)):
            return None
        index = next(i for i, e in enumerate(parent.elts) if e is target)
        return outer.elts[index]
    return None


def _kept_in(name: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """The read `name` uses the container in place, or hands it to a call that copies or
    counts its items: the container itself goes nowhere."""
    parent = parents.get(id(name))
    if isinstance(parent, ast.Attribute | ast.Subscript):
        return parent.value is name
    if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return parent.iter is name
    if isinstance(parent, ast.Starred):
        name_or_starred: ast.expr = parent
        parent = parents.get(id(parent))
    else:
        name_or_starred = name
    if isinstance(parent, ast.Call) and name_or_starred in parent.args:
        func = parent.func
        if isinstance(func, ast.Name):
            return func.id in _COPYING_NAMES
        return isinstance(func, ast.Attribute) and func.attr in _COPYING_ATTRIBUTES
    return False


# Loops of a constructor filling private lists
#
# `__init__` is read statement by statement to learn what each attribute holds (see
# `ModuleInterpreter._collect_attributes`); a loop filling a private list
# (`for i, w in enumerate(widths): stages.append(Block(cin, w)); cin = w`) is what
# `self.stages = nn.ModuleList(stages)` below it copies. Such a loop can be run there as it
# runs in `__init__` when it touches nothing but locals: it never mentions `self`, defines
# no function or class, stores no attribute or item, and changes no container but private
# lists. Every local it binds must be bound, anywhere in the function, only by it or by
# plain assignments to names at the top of the body (`cin, stages = 3, []`), which are then
# run as well: what the rest of the function reads of those names is what these statements
# gave them.


@cached_by_node
def list_building(function: FunctionNode) -> frozenset[int]:
    """id() of the statements at the top of `function`'s body that fill its private lists
    (see above): the loops, and the plain assignments binding the names the loops bind."""
    private = private_names(function)
    assignments = {
        id(stmt): stmt for stmt in function.body if isinstance(stmt, ast.Assign) and _plain(stmt)
    }
    stored_by: dict[str, set[int]] = {}
    for stmt in function.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                stored_by.setdefault(node.id, set()).add(id(stmt))
    found: set[int] = set()
    for stmt in function.body:
        if not isinstance(stmt, ast.For) or not _fills_private(stmt, private):
            continue
        bound = {
            n.id
            for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        others = set().union(*(stored_by[name] for name in bound)) - {id(stmt)}
        if others <= assignments.keys():
            found.add(id(stmt))
            found.update(others)
    return frozenset(found)


def _plain(stmt: ast.Assign) -> bool:
    """`a = ...`, `a, b = ...`: an assignment to plain names only."""
    return all(
        isinstance(t, ast.Name)
        or (isinstance(t, ast.Tuple | ast.List) and all(isinstance(e, ast.Name) for e in t.elts))
        for t in stmt.targets
    )


def _fills_private(loop: ast.For, private: frozenset[str]) -> bool:
    """A loop touching nothing but locals, whose container changes are all of private
    lists (see above), that changes at least one."""
    fills = False
    if loop.orelse:
        return False
    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and node.id == "self":
            return False
        if isinstance(node, (*_NESTED, ast.Global, ast.Nonlocal)):
            return False
        if isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
            holder = node.value if isinstance(node, ast.Subscript) else None
            if not (isinstance(holder, ast.Name) and holder.id in private):
                return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if isinstance(receiver, ast.Name) and receiver.id in private:
                fills = True
            elif node.func.attr in _CHANGING_METHODS:
                return False
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr", "exec", "eval")
        ):
            return False
    return fills

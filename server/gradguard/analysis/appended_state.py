"""Lists kept on `self` that only ever grow by appends: `self.cost_history = []` in
`__init__`, `self.cost_history.append(loss)` in `learn()`, `plt.plot(self.cost_history)` in
`plot_cost()`.

What such a list holds in any method is at most the join of everything any method of the
class appends to it, which the interpreter learns from those methods' summaries. That is
only true when the file shows every change of the list, so an attribute qualifies only when
every mention of its name in the file (on any receiver, since receivers' types are not
known everywhere) is one of:

* `self.<attr> = []` (or `list()`, or one target of `self.a, self.b = [], []`) in a method
  of the class, one of them in `__init__`;
* `self.<attr>.append(x)` in a method of the class (one argument, no keywords), or a method
  that adds nothing (`pop`, `clear`, `count`, `index`, `copy`);
* `<instance>.<attr>.append(x)` in any function of the file (`self.memory.logprobs.append(x)`
  in another class's method): the receiver's class is not known there, so that function's
  appends to any list of that name join what the list holds (a join only loses certainty);
  such an append at module or class level disqualifies the attribute;
* a read that cannot change or keep the list: an item (`self.<attr>[-1]`), the iterable of a
  loop or comprehension, a test, or an argument of a builtin, numpy, torch or matplotlib
  function or of a plotting method.

Anything else (an alias `h = self.<attr>`, a return, an argument of any other call, a store
of an item, `extend`, `+=`, `getattr` by name) disqualifies the attribute. The class's bases
must be none, `object` or `torch.nn.Module`, whose code never touches such names.

A read inside a method that itself appends to the list (`self.losses.append(loss.detach())`
then `return self.losses[-1]`) cannot wait for that method's summary. There the list holds
at most what the other methods append joined with what this method's appends added so far,
when every append of this method ends before the read in the source (`appends_precede`):
statements run in source order but for loops, whose later passes run the same appends
again, so every earlier call of the method and this one up to the read appended only
through appends already evaluated.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeGuard

from gradguard.analysis import libraries
from gradguard.analysis.names import dotted, paired
from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import enclosing_function, module_nodes_of, module_parents, walk

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# List methods that add nothing to the list (or only read it).
_NOT_ADDING = frozenset({"pop", "clear", "count", "index", "copy"})
# Builtins that read their arguments without keeping or changing them.
_READING_BUILTINS = frozenset(
    "len list tuple sum max min sorted print enumerate zip str repr iter reversed any all".split()
)
# Libraries whose functions read (convert, plot, reduce) lists without keeping a reference
# the file could later change through.
_READING_LIBRARIES = ("numpy.", "matplotlib.", "torch.", "math.", "statistics.")


def appended_lists(
    tree: ast.Module, cls: ast.ClassDef, resolve: Callable[[ast.expr], str | None]
) -> dict[str, tuple[FunctionNode, ...]]:
    """The attributes of `cls` that qualify (see the module docstring), each with the
    methods of the class that append to it. `resolve` gives an expression's qualified name
    through the file's imports."""
    methods = [s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    init = next((m for m in methods if m.name == "__init__"), None)
    if init is None:
        return {}
    resets = _empty_list_stores(init)
    if not resets:
        return {}
    owner = {id(node): method for method in methods for node in walk(method)}
    parents = _index(tree).parents
    found: dict[str, tuple[FunctionNode, ...]] = {}
    for attr in resets:
        appenders = _appenders(tree, attr, owner, parents, resolve)
        if appenders is not None:
            found[attr] = appenders
    return found


def appends_precede(method: FunctionNode, attr: str, read: ast.expr) -> bool:
    """Whether every `<x>.<attr>.append(...)` of `method` ends before `read` starts in the
    source, none of them in a function, lambda or class nested in `method` (whose code may
    run later, at a call)."""
    start = (read.lineno, read.col_offset)
    for node in walk(method):
        if node is not method and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            if any(_appends_to(inner, attr) for inner in walk(node)):
                return False
        elif _appends_to(node, attr):
            end = (node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
            if end > start:
                return False
    return True


def _appends_to(node: ast.AST, attr: str) -> TypeGuard[ast.Call]:
    """`<x>.<attr>.append(...)`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "append"
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == attr
    )


def _empty_list_stores(init: FunctionNode) -> frozenset[str]:
    """Attributes `__init__` sets to an empty list with a plain statement of its body (also
    through unpacking: `self.log_probs, self.values = [], []`)."""
    names: set[str] = set()
    for stmt in init.body:
        if isinstance(stmt, ast.Assign):
            for target in _given_empty_lists(stmt):
                if dotted(target.value) == "self":
                    names.add(target.attr)
    return frozenset(names)


def _given_empty_lists(stmt: ast.Assign) -> list[ast.Attribute]:
    """The attribute targets of `stmt` given an empty list."""
    return [
        target
        for whole in stmt.targets
        for target, value in paired(whole, stmt.value)
        if isinstance(target, ast.Attribute) and _is_empty_list(value)
    ]


def _is_empty_list(expr: ast.expr | None) -> bool:
    if isinstance(expr, ast.List):
        return not expr.elts
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "list"
        and not expr.args
        and not expr.keywords
    )


def _appenders(
    tree: ast.Module,
    attr: str,
    owner: dict[int, FunctionNode],
    parents: dict[int, ast.AST],
    resolve: Callable[[ast.expr], str | None],
) -> tuple[FunctionNode, ...] | None:
    """The methods appending to `self.<attr>`, or None when some mention disqualifies it."""
    appenders: dict[int, FunctionNode] = {}
    for node in _mentions(tree, attr):
        if isinstance(node, ast.Constant):
            return None  # `getattr(self, "attr")` and the like
        method = owner.get(id(node)) if dotted(node.value) == "self" else None
        parent = parents.get(id(node))
        if isinstance(node.ctx, ast.Store):
            if method is None or not _stores_empty_list(node, parent, parents):
                return None
            continue
        if isinstance(node.ctx, ast.Del) or parent is None:
            return None
        use = _use(node, parent, parents, resolve)
        if use == "append" and method is None:
            method = enclosing_function(node, parents)  # `self.memory.logprobs.append(x)`
        if use == "append" and method is not None:
            appenders[id(method)] = method
        elif use != "read":
            return None
    return tuple(appenders.values())


def _mentions(tree: ast.Module, attr: str) -> Iterator[ast.Attribute | ast.Constant]:
    yield from _index(tree).mentions.get(attr, ())


def attribute_mentions(tree: ast.Module, attr: str) -> Iterator[ast.Attribute]:
    """Every access `<anything>.<attr>` of the file (loads, stores, deletions), in the order
    of the shared module walk."""
    for node in _mentions(tree, attr):
        if isinstance(node, ast.Attribute):
            yield node


@dataclass(frozen=True)
class _Index:
    """Every attribute access and string constant of a file by name, and every node's
    parent, from one pass over the shared module walk."""

    mentions: dict[str, list[ast.Attribute | ast.Constant]]
    parents: dict[int, ast.AST]


@cached_by_node
def _index(tree: ast.Module) -> _Index:
    mentions: dict[str, list[ast.Attribute | ast.Constant]] = {}
    parents = module_parents(tree)  # shared: read only
    for node in module_nodes_of(tree, ast.Attribute, ast.Constant):
        if isinstance(node, ast.Attribute):
            mentions.setdefault(node.attr, []).append(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            mentions.setdefault(node.value, []).append(node)
    return _Index(mentions, parents)


def _stores_empty_list(
    node: ast.Attribute, parent: ast.AST | None, parents: dict[int, ast.AST]
) -> bool:
    """`self.<attr> = []`, alone or as one target of an unpacking of empty lists."""
    while isinstance(parent, ast.Tuple | ast.List):
        parent = parents.get(id(parent))
    if not isinstance(parent, ast.Assign):
        return False
    return any(target is node for target in _given_empty_lists(parent))


def _use(
    node: ast.Attribute,
    parent: ast.AST,
    parents: dict[int, ast.AST],
    resolve: Callable[[ast.expr], str | None],
) -> str:
    """ "append", "read" or "other": what the expression around a load of the list does."""
    if isinstance(parent, ast.Attribute):
        call = parents.get(id(parent))
        if not (isinstance(call, ast.Call) and call.func is parent):
            return "other"
        if parent.attr == "append" and len(call.args) == 1 and not call.keywords:
            return "append" if not isinstance(call.args[0], ast.Starred) else "other"
        return "read" if parent.attr in _NOT_ADDING else "other"
    if isinstance(parent, ast.Subscript):
        return "read" if isinstance(parent.ctx, ast.Load) else "other"
    if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return "read" if parent.iter is node else "other"
    if isinstance(parent, ast.If | ast.While | ast.Compare | ast.BoolOp | ast.UnaryOp):
        return "read"
    if isinstance(parent, ast.FormattedValue):
        return "read"
    if isinstance(parent, ast.Call) and node in parent.args:
        return "read" if _reads_arguments(parent, resolve) else "other"
    return "other"


def _reads_arguments(call: ast.Call, resolve: Callable[[ast.expr], str | None]) -> bool:
    """A call that reads its arguments and keeps no reference to them."""
    if isinstance(call.func, ast.Name) and call.func.id in _READING_BUILTINS:
        return True
    qualified = resolve(call.func)
    if qualified is not None and qualified.startswith(_READING_LIBRARIES):
        return True
    return isinstance(call.func, ast.Attribute) and call.func.attr in libraries.PLOTTING_METHODS

"""Fast, cached breadth-first walks of syntax trees.

`ast.walk` builds a generator per node (through `iter_child_nodes` and `iter_fields`);
on a 2,000-line module several whole-tree walks per check cost more than parsing it.
`walk` visits the same nodes in the same order (breadth-first, fields in declaration
order, exactly like `ast.walk`) with a plain list. `module_nodes` keeps the walk of a whole
module per tree, so the analysis passes and rules that scan the whole module share one
walk, and `module_parents` the parent of every node, noted during that walk. Trees are
never changed after parsing, so a kept walk stays right for its tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import TypeVar, overload

from gradguard.analysis.node_cache import cached_by_node

_AST = ast.AST
# Definitions whose body runs only when called: `own_nodes` and the other walks of one
# function's own code do not descend into them. A tuple built once: a union written in a
# walk's loop would be rebuilt for every node.
NESTED_CODE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Nodes without children in a parsed tree (a Constant holds a Python value, a context
# nothing): a walk that looks for other kinds need not ask for their children.
LEAVES = frozenset({ast.Constant, ast.Load, ast.Store, ast.Del})
_Stmt = TypeVar("_Stmt", bound=ast.stmt)
_Node = TypeVar("_Node", bound=ast.AST)
_Other = TypeVar("_Other", bound=ast.AST)


def children(node: ast.AST) -> list[ast.AST]:
    """The direct children of `node`, in the order `ast.iter_child_nodes` gives them."""
    found: list[ast.AST] = []
    append = found.append
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, _AST):
            append(value)
        elif isinstance(value, list):
            for item in value:  # a plain loop: a generator per call cost more than the work
                if isinstance(item, _AST):
                    append(item)
    return found


def walk(node: ast.AST) -> list[ast.AST]:
    """Every node under `node` (itself first), in `ast.walk`'s order."""
    nodes = [node]
    append, extend = nodes.append, nodes.extend
    for current in nodes:  # the list grows while it is read: a breadth-first queue
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, _AST):
                append(value)
            elif isinstance(value, list):
                extend(item for item in value if isinstance(item, _AST))
    return nodes


def module_nodes(tree: ast.Module) -> tuple[ast.AST, ...]:
    """`walk(tree)` of a whole module, computed once per tree."""
    return _module_walk(tree)[0]


def module_parents(tree: ast.Module) -> dict[int, ast.AST]:
    """id() of each node of the module -> the node whose child it is (for a node that is the
    child of several, such as the shared `ast.Load()`, the last in walk order): the map
    `for node in module_nodes(tree): for child in children(node): parents[id(child)] = node`
    builds, made during the same walk, once per tree. Shared: never change it."""
    return _module_walk(tree)[1]


@cached_by_node
def _module_walk(tree: ast.Module) -> tuple[tuple[ast.AST, ...], dict[int, ast.AST]]:
    nodes: list[ast.AST] = [tree]
    parents: dict[int, ast.AST] = {}
    append = nodes.append
    for current in nodes:  # as `walk`, noting each child's parent on the way
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, _AST):
                append(value)
                parents[id(value)] = current
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
                        parents[id(item)] = current
    return tuple(nodes), parents


@overload
def module_nodes_of(tree: ast.Module, kind: type[_Node], /) -> tuple[_Node, ...]: ...


@overload
def module_nodes_of(
    tree: ast.Module, kind: type[_Node], other: type[_Other], /
) -> tuple[_Node | _Other, ...]: ...


@overload
def module_nodes_of(tree: ast.Module, /, *kinds: type[ast.AST]) -> tuple[ast.AST, ...]: ...


def module_nodes_of(tree: ast.Module, /, *kinds: type[ast.AST]) -> tuple[ast.AST, ...]:
    """The nodes of `module_nodes(tree)` that are instances of one of `kinds`, in the same
    order: what `for node in module_nodes(tree): if isinstance(node, kinds)` visits.

    Most whole-module scans look for one or two kinds of node among tens of thousands; the
    nodes are indexed by type once per tree (`_type_index`), so a scan reads only its own
    kinds. Parsed trees hold the `ast` classes themselves, so a node is an instance of a kind
    exactly when its type is that kind or a subclass of it (`ast.expr` selects every
    expression type)."""
    nodes, index, answers = _type_index(tree)
    known = answers.get(kinds)
    if known is None:
        positions: list[int] = []
        for kind, found in index.items():
            if issubclass(kind, kinds):
                positions += found
        positions.sort()  # several types: back into walk order (a merge of sorted runs)
        known = tuple([nodes[i] for i in positions])
        answers[kinds] = known
    return known


@cached_by_node
def _type_index(
    tree: ast.Module,
) -> tuple[tuple[ast.AST, ...], dict[type, list[int]], dict[object, tuple[ast.AST, ...]]]:
    """`module_nodes(tree)`; each node type found there -> the positions of its nodes in
    it, ascending; and the answers of `module_nodes_of` so far, by the kinds asked for."""
    nodes = module_nodes(tree)
    index: dict[type, list[int]] = {}
    for position, node in enumerate(nodes):
        kind = type(node)
        found = index.get(kind)
        if found is None:
            index[kind] = [position]
        else:
            found.append(position)
    return nodes, index, {}


def own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a block of statements in source order (depth first), not descending into
    the nested functions, classes and lambdas it defines (whose code runs only when called)."""
    stack: list[ast.AST] = list(reversed(body))
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        yield node
        if isinstance(node, NESTED_CODE):
            continue
        found = children(node)
        found.reverse()
        push(found)


def enclosing_function(
    node: ast.AST, parents: dict[int, ast.AST]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body holds `node`, by `parents` (`module_parents`);
    None at module level, or when a class body or a lambda comes first."""
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
            return current
        if isinstance(current, ast.ClassDef | ast.Lambda):
            return None
        current = parents.get(id(current))
    return None


def innermost_function(
    node: ast.AST, parents: dict[int, ast.AST]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function around `node`, through class bodies and lambdas (unlike
    `enclosing_function`): the method that runs a nested class's or lambda's code, or
    defines it; None at module level."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef):
        current = parents.get(id(current))
    return current


def within(node: ast.AST, outer: ast.AST) -> bool:
    """Whether `node` starts within the source span of `outer` (a loop, a function)."""
    start = (getattr(outer, "lineno", 0), getattr(outer, "col_offset", 0))
    end = (
        getattr(outer, "end_lineno", None) or start[0],
        getattr(outer, "end_col_offset", None) or 0,
    )
    where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    return start <= where <= end


def innermost_first(enclosing: Iterable[_Stmt]) -> list[_Stmt]:
    """Statements that all enclose one place (the loops of `every_iteration`, a frozenset),
    innermost first: a nested statement starts after the one around it. Iterating the set
    itself would follow the objects' addresses, which differ from run to run."""
    return sorted(enclosing, key=lambda node: (node.lineno, node.col_offset), reverse=True)


def assignment_targets(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """Every assignment target in a block and its nested blocks (not nested functions)."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets = [stmt.target]
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Tuple | ast.List):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
            else:
                yield target
        for name in ("finalbody", "orelse", "body"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                stack.extend(reversed(block))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(reversed(handler.body))


def statement_block(root: ast.AST, stmt: ast.stmt) -> tuple[ast.AST, list[ast.stmt]] | None:
    """The node under `root` (or `root` itself) owning the statement list that holds
    `stmt`, and that list, as `ModuleAnalysis.block_of` gives them; None when `stmt` is not
    under `root`. Only statements (and `except` clauses, `match` cases) are visited, never
    expressions: a step of the analysis asks this of the function it interprets without
    reading the walk of the whole module, which every edit changes."""
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            for item in block:
                if item is stmt:
                    return node, block
                if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                    stack.append(item)
    return None

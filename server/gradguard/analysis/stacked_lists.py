"""Loops that certainly ran once a later statement stacks the list they fill.

A decoder fills a list step by step and stacks it afterwards:

    logits = []
    for t in range(tgt.size(1)):
        ...
        logits.append(self.out(h))
    return torch.stack(logits, dim=1)

`torch.stack`, `torch.cat` and their kin raise on an empty list (checked against torch
2.13.0: "stack expects a non-empty TensorList", "torch.cat(): expected a non-empty list of
Tensors"). The list is empty when the loop starts and nothing but the loop's body touches
it until the stacking call, so every run that gets past that call ran the body at least
once: the loop is certainly entered on every path that goes on, as a loop over a known
non-empty range is (see `loop_entry`).

A loop counts (`stacking_calls` gives the calls that would tell, the interpreter checks
that each one is a torch function of `api.EMPTY_LIST_RAISES`) when, in one block of
statements:

* a statement before the loop binds a plain name to `[]`, and no statement between it and
  the loop, nor the loop's iterable, target or `else` block, mentions the name;
* the loop's body mentions the name (it fills the list);
* a later statement of the block certainly calls a function on the name as its first
  argument (a call reached through other calls, attributes, subscripts, operators and
  displays, never through a conditional expression, `and`/`or`, a comprehension or a
  lambda), and no statement between the loop and it mentions the name or may leave the
  block (`return`, `raise`, `break`, `continue`, `yield`);
* the name is no global or nonlocal one, and no nested function, class or lambda of the
  scope mentions it (a closure could fill it);
* the block is not inside a `try` (a handler would go on after the failed call), nor a
  `with` other than a torch context manager (which might swallow the error).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gradguard.analysis.node_cache import cached_by_node
from gradguard.analysis.walk import NESTED_CODE, own_nodes

ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef
_TRIES = (ast.Try, getattr(ast, "TryStar", ast.Try))  # `try ... except*` from Python 3.11
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom)
# Expressions whose every child is evaluated whenever they are (in order).
_CERTAIN = (
    ast.Call,
    ast.Attribute,
    ast.Subscript,
    ast.BinOp,
    ast.UnaryOp,
    ast.Tuple,
    ast.List,
    ast.Starred,
    ast.keyword,
    ast.Slice,
)


@cached_by_node
def stacking_calls(scope: ScopeNode) -> dict[int, tuple[ast.Call, ...]]:
    """By id() of each `for` loop of `scope` (its own code, not nested functions'), the
    calls after it that take the list only its body fills (see the module docs)."""
    unsafe = _unsafe_names(scope)
    found: dict[int, tuple[ast.Call, ...]] = {}
    for body in _plain_blocks(scope.body):
        emptied: dict[str, int] = {}  # name -> index of its latest `name = []` so far
        names = _Names()
        for index, stmt in enumerate(body):
            if isinstance(stmt, ast.For | ast.AsyncFor) and emptied:
                calls = tuple(_calls_after(body, index, emptied, unsafe, names))
                if calls:
                    found[id(stmt)] = calls
            empty = _emptied(stmt)
            if empty is not None:
                emptied[empty] = index
    return found


class _Names:
    """The names each statement (or expression) mentions, found once per node."""

    def __init__(self) -> None:
        self._found: dict[int, frozenset[str]] = {}

    def of(self, node: ast.AST) -> frozenset[str]:
        found = self._found.get(id(node))
        if found is None:
            found = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            self._found[id(node)] = found
        return found

    def mention(self, nodes: list[ast.stmt] | list[ast.AST], name: str) -> bool:
        return any(name in self.of(node) for node in nodes)


def _emptied(stmt: ast.stmt) -> str | None:
    """The name `stmt` binds to `[]`, if it is `name = []`."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.List)
        and not stmt.value.elts
    ):
        return stmt.targets[0].id
    return None


def _plain_blocks(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """`body` and the blocks nested in it that no `try` (nor a `with` that may swallow an
    error) encloses; not those of nested functions and classes."""
    yield body
    for stmt in body:
        if isinstance(stmt, (*NESTED_CODE, *_TRIES)):
            continue
        if isinstance(stmt, ast.With | ast.AsyncWith) and not all(
            _torch_manager(item.context_expr) for item in stmt.items
        ):
            continue
        for field in ("body", "orelse"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield from _plain_blocks(block)
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from _plain_blocks(case.body)


def _torch_manager(expr: ast.expr) -> bool:
    """`torch.no_grad()`, `torch.autocast("cuda")`...: a call of a `torch.` function,
    written out (these managers let every error through)."""
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id == "torch"


def _unsafe_names(scope: ScopeNode) -> frozenset[str]:
    """Names declared global or nonlocal in `scope`, or mentioned by its nested code."""
    found: set[str] = set()
    for node in own_nodes(scope.body):
        if isinstance(node, ast.Global | ast.Nonlocal):
            found.update(node.names)
        elif isinstance(node, NESTED_CODE):
            found.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return frozenset(found)


def _calls_after(
    body: list[ast.stmt],
    index: int,
    emptied: dict[str, int],
    unsafe: frozenset[str],
    names: _Names,
) -> Iterator[ast.Call]:
    """The calls after `body[index]` (a `for` loop) taking a list only the loop fills;
    `emptied`: the index of the latest `name = []` before it, by name."""
    loop = body[index]
    assert isinstance(loop, ast.For | ast.AsyncFor)
    for name, start in emptied.items():
        if name in unsafe or not names.mention(loop.body, name):
            continue
        if names.mention([*body[start + 1 : index], loop.target, loop.iter, *loop.orelse], name):
            continue
        if _may_leave(loop.orelse):
            continue
        for later in body[index + 1 :]:
            if names.mention([later], name):
                call = _stacking(later, name)
                if call is not None:
                    yield call
                break
            if _may_leave([later]):
                break


def _stacking(stmt: ast.stmt, name: str) -> ast.Call | None:
    """The call `stmt` certainly makes with the plain name `name` as its first argument,
    when that is the statement's only mention of the name (so nothing the statement runs
    before the call can fill the list)."""
    if not isinstance(stmt, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return):
        return None
    if stmt.value is None or sum(_is_name(n, name) for n in ast.walk(stmt)) != 1:
        return None
    stack: list[ast.AST] = [stmt.value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and node.args and _is_name(node.args[0], name):
            return node
        if isinstance(node, _CERTAIN):
            stack.extend(ast.iter_child_nodes(node))
    return None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _may_leave(stmts: list[ast.stmt]) -> bool:
    """Some statement may leave the block early (nested functions' code aside)."""
    return any(isinstance(node, _LEAVES) for node in own_nodes(stmts))

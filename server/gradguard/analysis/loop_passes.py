"""Branches that a loop over a known range certainly takes on some pass.

A training loop often does something every few steps:

    for step in range(4):
        fake = G(z)
        g_loss = bce(D(fake), ones)
        if step % 2 == 0:
            save_preview(to_image_range(fake))   # changes `fake` in place
        g_loss.backward()

The test is not known at any one pass, so the analysis joins both branches and an in-place
change made in one of them is not certain. But the loop variable runs through numbers the
analysis knows (`range` with known int bounds), and the test reads nothing else that could
change: on pass `step == 0` the branch certainly runs, and everything the rest of that pass
does (the backward above) runs after it. So what the branch certainly does is certainly done
on some pass, before the statements that follow it in the same pass, which run on every pass.

`loop_passes` gives the numbers a loop's variable takes on its passes, when all of them
certainly run and run through the whole body:

* the loop is `for NAME in range(...)` with the builtin `range` and bounds that are known
  ints (`loop_entry.known_range`);
* no statement of its body (nested functions aside) may leave a pass early or stop the loop:
  no `break`, `continue`, `return`, `raise`, `assert`, `yield` (a generator may never be
  resumed), and no `try` (a handler could go on past a failed statement);
* nothing in the body rebinds or deletes `NAME`, and it is not declared `global`/`nonlocal`
  there.

`branches_taken` evaluates an `if` test on each pass (the first `MOST_PASSES` of them): a test
made of the loop variable, int and bool literals, names the body never binds that hold a known
int (`log_every = 2`), `+ - * // % **` (small exponents), unary `- + not`, comparisons
and `and`/`or`. It says whether the test certainly holds on some pass (the body runs then) and
whether it certainly fails on some pass (the `else` block runs then). A division by zero, a
negative or huge exponent, or anything else makes the pass unknown; an unknown pass counts for
neither branch. Python's semantics are the model: `range` yields its numbers in order, each
pass binds the loop variable to the next one, and the operators are those of int.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass

from gradguard.analysis.loop_entry import known_int, known_range
from gradguard.analysis.values import Value
from gradguard.analysis.walk import own_nodes

# How many passes a test is evaluated on at most; a branch taken on a later pass only is
# not known to be taken (fewer passes looked at only makes the analysis know less).
MOST_PASSES = 4096
# The largest exponent evaluated (`step ** 2`); a larger one leaves the pass unknown.
_MOST_EXPONENT = 64

_LEAVING = (
    ast.Break,
    ast.Continue,
    ast.Return,
    ast.Raise,
    ast.Assert,
    ast.Yield,
    ast.YieldFrom,
    ast.Try,
    getattr(ast, "TryStar", ast.Try),
)
_ARITHMETIC: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_COMPARISONS: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


@dataclass(frozen=True)
class Passes:
    """The passes of a loop that runs its whole body on each: the loop variable's name and
    the numbers it takes, in order."""

    name: str
    values: range
    # Names the loop's body binds somewhere (their value may differ from pass to pass).
    bound_in_body: frozenset[str]


@dataclass(frozen=True)
class BranchesTaken:
    """What an `if` test inside such a loop certainly does on some pass."""

    body: bool  # it holds on some pass: the `if` block runs then
    orelse: bool  # it fails on some pass: the `else` block (possibly empty) runs then


def loop_passes(
    loop: ast.For | ast.AsyncFor,
    lookup: Callable[[str], Value],
    *,
    range_is_builtin: bool,
) -> Passes | None:
    """The passes of `loop` (see the module docs), or None when they are not all known to
    run the whole body. `lookup` gives the value bound to a name or dotted key before the
    loop; `range_is_builtin` tells whether `range` is the builtin in this scope."""
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
        return None
    iterable = loop.iter
    if not (
        range_is_builtin
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and not iterable.keywords
        and not any(isinstance(arg, ast.Starred) for arg in iterable.args)
    ):
        return None
    values = known_range(iterable.args, lookup)
    if values is None or not values:
        return None
    name = loop.target.id
    bound: set[str] = set()
    for node in own_nodes(loop.body):
        if isinstance(node, _LEAVING):
            return None
        if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return None
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            if _declares(node, name):
                return None
    if name in bound:
        return None
    return Passes(name, values, frozenset(bound))


def branches_taken(test: ast.expr, passes: Passes, lookup: Callable[[str], Value]) -> BranchesTaken:
    """Whether `test`, an `if` test run on every pass of the loop `passes` describes,
    certainly holds on some pass and certainly fails on some pass (see the module docs).
    `lookup` gives what other names hold at the test."""
    holds = fails = False
    for number in passes.values[:MOST_PASSES]:
        outcome = _evaluate(test, number, passes, lookup)
        if outcome is None:
            continue
        holds, fails = holds or bool(outcome), fails or not outcome
        if holds and fails:
            break
    return BranchesTaken(body=holds, orelse=fails)


def _declares(code: ast.AST, name: str) -> bool:
    """Whether nested code declares `name` nonlocal or global (and so may rebind it)."""
    return any(
        isinstance(node, ast.Global | ast.Nonlocal) and name in node.names
        for node in ast.walk(code)
    )


def _evaluate(
    expr: ast.expr, number: int, passes: Passes, lookup: Callable[[str], Value]
) -> int | None:
    """`expr`'s value on the pass binding the loop variable to `number` (bools as 0/1 are
    kept as bool by Python; only truth matters to the caller), or None when not known."""
    if isinstance(expr, ast.Constant):
        value: object = expr.value
        return value if isinstance(value, int) else None
    if isinstance(expr, ast.Name):
        if expr.id == passes.name:
            return number
        if expr.id in passes.bound_in_body:
            return None
        return known_int(expr, lookup)
    if isinstance(expr, ast.UnaryOp):
        inner = _evaluate(expr.operand, number, passes, lookup)
        if inner is None:
            return None
        if isinstance(expr.op, ast.Not):
            return not inner
        if isinstance(expr.op, ast.USub):
            return -inner
        return inner if isinstance(expr.op, ast.UAdd) else None
    if isinstance(expr, ast.BinOp):
        return _arithmetic(expr, number, passes, lookup)
    if isinstance(expr, ast.Compare):
        return _compare(expr, number, passes, lookup)
    if isinstance(expr, ast.BoolOp):
        # `a and b` is `a` when `a` is false, else `b`; `a or b` the other way round.
        last: int | None = None
        for operand in expr.values:
            last = _evaluate(operand, number, passes, lookup)
            if last is None:
                return None
            if bool(last) is not isinstance(expr.op, ast.And):
                return last
        return last
    return None


def _arithmetic(
    expr: ast.BinOp, number: int, passes: Passes, lookup: Callable[[str], Value]
) -> int | None:
    left = _evaluate(expr.left, number, passes, lookup)
    right = _evaluate(expr.right, number, passes, lookup)
    if left is None or right is None:
        return None
    if isinstance(expr.op, ast.Pow):
        if not 0 <= right <= _MOST_EXPONENT:
            return None  # a float, or a huge number
        return int(left**right)
    function = _ARITHMETIC.get(type(expr.op))
    if function is None or (isinstance(expr.op, ast.FloorDiv | ast.Mod) and right == 0):
        return None
    return function(left, right)


def _compare(
    expr: ast.Compare, number: int, passes: Passes, lookup: Callable[[str], Value]
) -> bool | None:
    left = _evaluate(expr.left, number, passes, lookup)
    if left is None:
        return None
    for op, comparator in zip(expr.ops, expr.comparators, strict=True):
        function = _COMPARISONS.get(type(op))
        right = _evaluate(comparator, number, passes, lookup)
        if function is None or right is None:
            return None
        if not function(left, right):
            return False
        left = right
    return True

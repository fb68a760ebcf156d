"""What an `if` test tells each branch about the names it tests (type narrowing).

`if h is not None: h.detach_()` leaves `h` detached on one branch and `None` on the other:
no path carries the old graph on. Without narrowing the `else` path would keep the old
value and the join would look like an undetached carry. Only facts that hold whatever the
values are: `x is None` / `x is not None` (identity tests cannot be overloaded), combined
with `not`, `and` (all conjuncts hold on the true branch) and `or` (all disjuncts fail on
the false branch). `isinstance(m, nn.BatchNorm2d)` is recorded as it is written: what it
keeps of `m` depends on the classes it names and the modules `m` may be (see
`gradguard.analysis.submodules.narrowed`, applied by the interpreter).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gradguard.analysis.names import dotted


@dataclass(frozen=True)
class Facts:
    """What holds on one branch: dotted names certainly bound to None, names certainly
    equal (or certainly not equal) to a literal (`phase == "train"`), names certainly
    truthy or falsy (`if training:`)."""

    none: frozenset[str] = frozenset()
    equal: frozenset[tuple[str, object]] = frozenset()
    unequal: frozenset[tuple[str, object]] = frozenset()
    truthy: frozenset[str] = frozenset()
    falsy: frozenset[str] = frozenset()
    # `isinstance(key, classes)` came out as the flag: (key, the classes' expression, flag).
    instance: frozenset[tuple[str, ast.expr, bool]] = frozenset()

    def __and__(self, other: Facts) -> Facts:
        return Facts(
            self.none | other.none,
            self.equal | other.equal,
            self.unequal | other.unequal,
            self.truthy | other.truthy,
            self.falsy | other.falsy,
            self.instance | other.instance,
        )

    def decides(self, condition: Condition) -> bool | None:
        """Whether `condition` certainly holds (True), certainly fails (False), or either."""
        if condition.literal is _TRUTHY:
            holds = (
                True
                if condition.key in self.truthy
                else False
                if condition.key in self.falsy
                else None
            )
        elif (condition.key, condition.literal) in self.equal:
            holds = True
        elif (condition.key, condition.literal) in self.unequal or any(
            key == condition.key and value != condition.literal for key, value in self.equal
        ):
            holds = False
        else:
            holds = None
        if holds is None:
            return None
        return holds if condition.when else not holds


# The literal of a truthiness condition (`set_grad_enabled(training)`).
_TRUTHY = object()


@dataclass(frozen=True)
class Condition:
    """A test of one name: `key == literal` (or the name's truthiness when `literal` is the
    truthiness marker), required to be `when`."""

    key: str
    literal: object
    when: bool


def condition_of(test: ast.expr) -> Condition | None:
    """`phase == "train"`, `phase != "val"`, `training`, `not training` as a Condition."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = condition_of(test.operand)
        return None if inner is None else Condition(inner.key, inner.literal, not inner.when)
    key = dotted(test)
    if key is not None:
        return Condition(key, _TRUTHY, True)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq | ast.NotEq)
        and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, str | int)
        and not isinstance(test.comparators[0].value, bool)
    ):
        key = dotted(test.left)
        if key is not None:
            return Condition(key, test.comparators[0].value, isinstance(test.ops[0], ast.Eq))
    return None


NOTHING = Facts()


def of_test(test: ast.expr) -> tuple[Facts, Facts]:
    """The facts on the branch where `test` is true, and on the branch where it is false."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        when_true, when_false = of_test(test.operand)
        return when_false, when_true
    if isinstance(test, ast.BoolOp):
        parts = [of_test(value) for value in test.values]
        if isinstance(test.op, ast.And):
            combined = NOTHING
            for when_true, _ in parts:
                combined = combined & when_true
            return combined, NOTHING
        combined = NOTHING
        for _, when_false in parts:
            combined = combined & when_false
        return NOTHING, combined
    instance = _isinstance_test(test)
    if instance is not None:
        tested, classes = instance
        return (
            Facts(instance=frozenset({(tested, classes, True)})),
            Facts(instance=frozenset({(tested, classes, False)})),
        )
    condition = condition_of(test)
    if condition is not None:
        return _condition_facts(condition, True), _condition_facts(condition, False)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        key = dotted(test.left)
        if key is None:
            return NOTHING, NOTHING
        if isinstance(test.ops[0], ast.Is):
            return Facts(frozenset({key})), NOTHING
        if isinstance(test.ops[0], ast.IsNot):
            return NOTHING, Facts(frozenset({key}))
    return NOTHING, NOTHING


def _isinstance_test(test: ast.expr) -> tuple[str, ast.expr] | None:
    """`isinstance(m, C)` of a dotted name: the name and the classes' expression."""
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and not test.keywords
        and not any(isinstance(a, ast.Starred) for a in test.args)
    ):
        return None
    key = dotted(test.args[0])
    return None if key is None else (key, test.args[1])


def _condition_facts(condition: Condition, outcome: bool) -> Facts:
    """The facts on the branch where `condition` came out as `outcome`."""
    holds = outcome == condition.when
    if condition.literal is _TRUTHY:
        return (
            Facts(truthy=frozenset({condition.key}))
            if holds
            else Facts(falsy=frozenset({condition.key}))
        )
    pair = frozenset({(condition.key, condition.literal)})
    return Facts(equal=pair) if holds else Facts(unequal=pair)

"""`loop_passes`: loops over known numbers whose every pass runs the whole body, the `if`
branches such a loop certainly takes on some pass, and what the interpreter does with that
(an in-place change made by such a branch is seen by a backward later in every pass)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.loop_passes import (
    MOST_PASSES,
    Passes,
    branches_taken,
    loop_passes,
)
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import UNKNOWN, Kind, Value

_KNOWN = {
    "every": Value(kind=Kind.SCALAR, const=3),
    "ratio": Value(kind=Kind.SCALAR, const=0.5),
}


def _lookup(key: str) -> Value:
    return _KNOWN.get(key, UNKNOWN)


def _loop(source: str) -> ast.For:
    loop = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(loop, ast.For)
    return loop


@pytest.mark.parametrize(
    ("source", "values"),
    [
        ("for i in range(4):\n    f(i)", range(4)),
        ("for i in range(1, every):\n    f(i)", range(1, 3)),
        ("for i in range(5, 0, -2):\n    f(i)", range(5, 0, -2)),
        ("for i in range(n):\n    f(i)", None),  # bounds not known
        ("for i in range(0):\n    f(i)", None),  # no pass at all
        ("for i in range(4, step=1):\n    f(i)", None),
        ("for i in [0, 1]:\n    f(i)", None),  # only ranges
        ("for i, j in enumerate(range(3)):\n    f(i)", None),
        ("for i in range(4):\n    if f(i):\n        break", None),
        ("for i in range(4):\n    if f(i):\n        continue\n    g(i)", None),
        ("for i in range(4):\n    return f(i)", None),
        ("for i in range(4):\n    raise ValueError(i)", None),
        ("for i in range(4):\n    assert f(i)", None),
        ("for i in range(4):\n    yield i", None),
        ("for i in range(4):\n    try:\n        f(i)\n    except OSError:\n        pass", None),
        ("for i in range(4):\n    i = f(i)", None),  # the loop variable rebound
        ("for i in range(4):\n    i += 1", None),
        ("for i in range(4):\n    del i", None),
        ("for i in range(4):\n    f(j := i)", range(4)),  # another name bound
        ("for i in range(4):\n    def g():\n        nonlocal i\n        i = 0", None),
        # a nested function's own `return` does not leave the pass
        ("for i in range(4):\n    def g(x):\n        return x\n    f(g(i))", range(4)),
    ],
)
def test_passes_of_a_loop(source: str, values: range | None) -> None:
    found = loop_passes(_loop(source), _lookup, range_is_builtin=True)
    assert (found.values if found is not None else None) == values


def test_a_rebound_range_is_not_the_builtin() -> None:
    loop = _loop("for i in range(4):\n    f(i)")
    assert loop_passes(loop, _lookup, range_is_builtin=False) is None


def _taken(
    test: str, values: range = range(4), bound: frozenset[str] = frozenset()
) -> tuple[bool, bool]:
    passes = Passes("i", values, bound)
    taken = branches_taken(ast.parse(test, mode="eval").body, passes, _lookup)
    return taken.body, taken.orelse


@pytest.mark.parametrize(
    ("test", "taken"),
    [
        ("i % 2 == 0", (True, True)),
        ("i == 0", (True, True)),
        ("i == 3", (True, True)),  # the last pass
        ("i == 4", (False, True)),  # past the range: never holds
        ("i >= 0", (True, False)),  # holds on every pass: the else block never runs
        ("i % every == 0", (True, True)),  # a name bound to an int
        ("(i + 1) % every == 0 and i > 0", (True, True)),
        ("not i", (True, True)),
        ("i", (True, True)),
        ("-i < -2", (True, True)),
        ("0 < i < 3", (True, True)),
        ("i ** 2 == 9", (True, True)),
        ("i or 5", (True, False)),
        ("i % n == 0", (False, False)),  # a name not known
        ("i % ratio == 0", (False, False)),  # a float
        ("i % 0 == 0", (False, False)),  # raises
        ("i // (i - i) == 0", (False, False)),
        ("i ** -1 == 1", (False, False)),
        ("i ** 100 > 0", (False, False)),  # too large to evaluate
        ("f(i)", (False, False)),
        ("i in (0, 1)", (False, False)),
        ('i == "0"', (False, False)),
    ],
)
def test_branches_taken_on_some_pass(test: str, taken: tuple[bool, bool]) -> None:
    assert _taken(test) == taken


def test_a_name_the_body_binds_is_not_known_at_the_test() -> None:
    assert _taken("i % every == 0", bound=frozenset({"every"})) == (False, False)


def test_only_the_first_passes_are_evaluated() -> None:
    late = range(MOST_PASSES + 10)
    assert _taken(f"i == {MOST_PASSES + 5}", late) == (False, True)
    assert _taken("i == 1", late) == (True, True)


def _modified(body: str) -> dict[int, bool]:
    """By line (from the first line of `body`), whether each backward call runs through a
    node whose saved tensor was certainly changed in place."""
    source = "import torch\nw = torch.randn(4, requires_grad=True)\n" + textwrap.dedent(body)
    calls = analyse_module(ast.parse(source), source).backward_calls
    return {c.call.lineno - 2: bool(c.through_modified) for c in calls}


def test_a_change_on_some_pass_reaches_the_backward_later_in_every_pass() -> None:
    found = _modified(
        """\
        for step in range(4):
            probs = torch.sigmoid(w)
            if step % 2 == 0:
                probs.mul_(2)
            probs.sum().backward()
        """
    )
    assert found == {5: True}


def test_the_else_block_of_a_test_failing_on_some_pass() -> None:
    found = _modified(
        """\
        for step in range(4):
            probs = torch.sigmoid(w)
            if step < 1:
                pass
            else:
                probs.mul_(2)
            probs.sum().backward()
        """
    )
    assert found == {7: True}


@pytest.mark.parametrize(
    "body",
    [
        # the test never holds on these passes
        """\
        for step in range(1, 4):
            probs = torch.sigmoid(w)
            if step % 5 == 0:
                probs.mul_(2)
            probs.sum().backward()
        """,
        # passes are not known
        """\
        for step in range(n):
            probs = torch.sigmoid(w)
            if step == 0:
                probs.mul_(2)
            probs.sum().backward()
        """,
        # the backward runs on some passes only
        """\
        for step in range(4):
            probs = torch.sigmoid(w)
            if step == 0:
                probs.mul_(2)
            if step == 1:
                probs.sum().backward()
        """,
        # the `if` itself runs on some passes only
        """\
        for step in range(4):
            probs = torch.sigmoid(w)
            if w.sum() > 0:
                if step == 0:
                    probs.mul_(2)
            probs.sum().backward()
        """,
        # the backward comes first in the pass; the next pass builds a new graph
        """\
        for step in range(4):
            probs = torch.sigmoid(w)
            probs.sum().backward()
            if step == 0:
                probs.mul_(2)
        """,
    ],
)
def test_changes_not_known_to_precede_a_backward_in_their_pass(body: str) -> None:
    assert not any(_modified(body).values())

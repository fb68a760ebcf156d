"""`construction_paths`: an `if` of `__init__` whose test the constructions' arguments
decide takes one block, and the class scan reads only that block's stores (see
tests/corpus/gg302/shortcut_of_one_construction.py and
negatives_shortcut_of_one_construction.py)."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import pytest

from gradguard.analysis.construction_paths import (
    holds,
    settled_test,
    taken_statements,
    truth,
)
from gradguard.analysis.names import local_binding_counts
from gradguard.analysis.values import Kind
from tests.analysis.test_value_facets import fact_at


def _test(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


def _known(values: dict[str, object]) -> Callable[[ast.expr], object]:
    def const(expr: ast.expr) -> object:
        return values.get(ast.unparse(expr))

    return const


@pytest.mark.parametrize(
    ("test", "known", "expected"),
    [
        ("a or b", {"a": None, "b": True}, True),  # one true part settles an `or`
        ("a or b", {"a": False, "b": 0}, False),
        ("a or b", {"a": None, "b": False}, None),
        ("a and b", {"a": None, "b": False}, False),  # one false part settles an `and`
        ("a and b", {"a": True, "b": "x"}, True),
        ("not a", {"a": 2}, False),
        ("not (a or b)", {"a": True}, False),
        ("a", {"a": ""}, False),  # the truth of a known string
        ("a", {"a": 1.5}, None),  # only bools, ints and strings are known constants
    ],
)
def test_truth_is_three_valued(test: str, known: dict[str, object], expected: bool | None) -> None:
    assert holds(_test(test), _known(known)) is expected


def test_truth_of_constants() -> None:
    assert truth(True) is True and truth(0) is False and truth("conv") is True
    assert truth(None) is None and truth(object()) is None


def _init(source: str) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(source))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))


def test_a_test_reading_a_name_bound_twice_is_not_settled() -> None:
    init = _init(
        """
        def __init__(self, stride, dilate):
            if dilate:
                stride = 1
            if stride != 1:
                pass
        """
    )
    counts = local_binding_counts(init)
    first, second = (s for s in init.body if isinstance(s, ast.If))
    assert settled_test(first.test, counts, lambda name: True)
    assert not settled_test(second.test, counts, lambda name: True)
    assert not settled_test(_test("(n := 2) > 1"), {}, lambda name: True)
    assert not settled_test(_test("any(c > 1 for c in sizes)"), {}, lambda name: True)


def test_a_local_the_scan_did_not_bind_is_not_settled() -> None:
    # `with ctx: size = 1` run by nothing: the module's `size` is not what `__init__` reads.
    assert settled_test(_test("size > 1"), {"size": 1}, lambda name: True)
    assert not settled_test(_test("size > 1"), {"size": 1}, lambda name: False)
    assert settled_test(_test("SIZE > 1"), {}, lambda name: False)  # a global


def test_taken_statements_follow_the_block_each_if_takes() -> None:
    init = _init(
        """
        def __init__(self, a, b):
            first = 1
            if a:
                self.x = 1
                if b:
                    self.y = 2
                else:
                    self.z = 3
            else:
                self.w = 4
            last = 5
        """
    )
    decided = {"a": True, "b": False}
    dropped: list[str] = []
    taken = taken_statements(
        init.body,
        lambda test: decided.get(ast.unparse(test)),
        lambda stmt: False,
        lambda block: dropped.extend(ast.unparse(s) for s in block),
    )
    assert [ast.unparse(s) for s in taken] == ["first = 1", "self.x = 1", "self.z = 3", "last = 5"]
    assert dropped == ["self.w = 4", "self.y = 2"]


def test_an_undecided_or_claimed_if_is_kept_whole() -> None:
    init = _init("def __init__(self, a):\n    if a:\n        self.x = 1\n")
    (branch,) = init.body
    kept = list(taken_statements(init.body, lambda t: None, lambda s: False, lambda b: None))
    assert kept == [branch]
    claimed = list(taken_statements(init.body, lambda t: True, lambda s: True, lambda b: None))
    assert claimed == [branch]


_BLOCK = """
class Block(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        {rebinding}
        if stride != 1 or cin != cout:
            self.skip = nn.Linear(cin, cout)
        else:
            self.skip = None

    def forward(self, h):
        layer = self.skip  # <- layer
        return h

Block(2, {cout}, stride={stride})(x).sum().backward()
"""


def test_the_constructions_numbers_decide_which_store_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = fact_at(_BLOCK.format(rebinding="", cout=2, stride=2), monkeypatch)
    assert layer.kind is Kind.MODULE and layer.module is not None
    assert layer.module.qualified == "torch.nn.Linear"


def test_the_other_block_keeps_no_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = fact_at(_BLOCK.format(rebinding="", cout=2, stride=1), monkeypatch)
    assert layer.kind is not Kind.MODULE


def test_a_test_reading_a_rebound_parameter_decides_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rebinding = "if cin > 100:\n            stride = 1"
    layer = fact_at(_BLOCK.format(rebinding=rebinding, cout=2, stride=2), monkeypatch)
    assert layer.kind is not Kind.MODULE

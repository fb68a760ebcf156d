"""`comprehension_counts`: how many modules a container built by a comprehension over a
known range holds (`ModuleRef.held_count`), and that a loop over such a container then
certainly runs its body."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.comprehension_counts import comprehension_count, unpacked_count
from gradguard.analysis.values import Kind, Value
from tests.analysis.test_held_module_loops import _out
from tests.analysis.test_value_facets import fact_at

_KNOWN = {"three": Value(kind=Kind.SCALAR, const=3), "flag": Value(kind=Kind.SCALAR, const=True)}


def _lookup(key: str) -> Value:
    return _KNOWN.get(key, Value())


def _count(source: str, *, builtin: bool = True) -> int | None:
    return comprehension_count(
        ast.parse(source, mode="eval").body, _lookup, range_is_builtin=builtin
    )


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("[Block() for _ in range(3)]", 3),
        ("(Block() for i in range(3))", 3),
        ("[Block(i) for i in range(1, 4)]", 3),
        ("[Block() for _ in range(0, 9, 2)]", 5),
        ("[Block() for _ in range(three)]", 3),
        ("[Block() for _ in range(0)]", 0),
        ("[Block() for _ in range(5, 1)]", 0),
        ("[Block() for _ in range(n)]", None),  # not known
        ("[Block() for _ in range(flag)]", None),  # a bool is not taken for an int
        ("[Block() for i in range(3) if i]", None),  # an `if` may drop items
        ("[Block() for i in range(3) for j in range(2)]", None),
        ("[Block() for _ in range(0, 3, 0)]", None),  # raises
        ("[Block() for _ in range(*sizes)]", None),
        ("[Block() for _ in range(3, step=1)]", None),
        ("[Block() for _ in layers]", None),
        ("{Block() for _ in range(3)}", None),  # equal items merge
        ("[Block(), Block()]", None),  # written out: counted elsewhere
    ],
)
def test_comprehension_count(source: str, count: int | None) -> None:
    assert _count(source) == count


def test_a_rebound_range_is_not_counted() -> None:
    assert _count("[Block() for _ in range(3)]", builtin=False) is None


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("f(*[Block() for _ in range(3)])", 3),
        ("f(*[Block() for _ in range(3)], head)", 4),
        ("f(stem, *[a, b], *(Block() for _ in range(2)))", 5),
        ("f(*[Block() for _ in range(n)], head)", None),
        ("f(*layers)", None),
        ("f(*[a, *rest])", None),
    ],
)
def test_unpacked_count(source: str, count: int | None) -> None:
    call = ast.parse(source, mode="eval").body
    assert isinstance(call, ast.Call)
    assert unpacked_count(call.args, _lookup, range_is_builtin=True) == count


def _held(monkeypatch: pytest.MonkeyPatch, built: str, extra: str = "") -> int | None:
    snippet = f"{extra}def run():\n    held = {built}  # <- held\n"
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.MODULE
    assert value.module is not None
    return value.module.held_count


@pytest.mark.parametrize(
    ("built", "count"),
    [
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])", 3),
        ("nn.ModuleList(nn.Linear(2, 2) for i in range(3))", 3),
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(2, 4)])", 2),
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(0)])", 0),
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(DEPTH)])", 4),  # a known constant
        ("nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)])", 3),
        ("nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)], nn.ReLU())", 4),
        ("nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])", 2),  # written out, as before
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(depth)])", None),
        ("nn.ModuleList([nn.Linear(2, 2) for i in range(3) if i != skip])", None),
        ("nn.Sequential(*[nn.Linear(2, 2) for _ in range(depth)])", None),
        ("nn.Sequential(nn.Linear(2, 2), nn.ReLU())", None),  # not this fact
    ],
)
def test_held_count_of_a_container(
    monkeypatch: pytest.MonkeyPatch, built: str, count: int | None
) -> None:
    extra = "DEPTH = 4\ndepth = int(input())\nskip = int(input())\n"
    assert _held(monkeypatch, built, extra) == count


_DEFAULT = """
class Stack(nn.Module):
    def __init__(self, depth=3):
        super().__init__()
        blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(depth)])  # <- blocks
        self.blocks = blocks
def run():
    return CONSTRUCTION
"""


@pytest.mark.parametrize(
    ("construction", "count"),
    [("Stack()", 3), ("Stack(2)", 2), ("Stack(depth=int(input()))", None)],
)
def test_an_init_default_every_construction_leaves_out(
    monkeypatch: pytest.MonkeyPatch, construction: str, count: int | None
) -> None:
    value = fact_at(_DEFAULT.replace("CONSTRUCTION", construction), monkeypatch)
    assert value.module is not None
    assert value.module.held_count == count


@pytest.mark.parametrize(
    "held",
    [
        "nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])",
        "nn.ModuleList(nn.Linear(2, 2) for _ in range(2))",
    ],
)
def test_a_loop_over_counted_layers_runs_them(monkeypatch: pytest.MonkeyPatch, held: str) -> None:
    assert _out(monkeypatch, held, "layer in self.layers") is True
    assert _out(monkeypatch, held, "i, layer in enumerate(self.layers)") is True


@pytest.mark.parametrize(
    ("held", "extra"),
    [
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(0)])", ""),
        ("nn.ModuleList([nn.Linear(2, 2) for i in range(2) if i > 5])", ""),
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])", "    del net.layers[:]\n"),
        ("nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])", "def range(n):\n    return []\n"),
    ],
)
def test_a_loop_over_layers_not_counted_may_run_none(
    monkeypatch: pytest.MonkeyPatch, held: str, extra: str
) -> None:
    assert not _out(monkeypatch, held, "layer in self.layers", extra)

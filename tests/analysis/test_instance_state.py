"""Per-instance state (`instance_state`): a construction passing a setting (a bool, a number,
a string) its class's other constructions do not agree on gives its instance a view of the
class of its own, whose `self.<flag>` is that value; a construction whose setting is not
one known value does not."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.call_sites import CallerFacts
from gradguard.analysis.instance_state import MAX_VIEWS, distinct_flags, instance_sites
from gradguard.analysis.model import learn_caller_facts
from gradguard.analysis.values import UNKNOWN, Grad, Kind, Value

HEADER = "import torch\nfrom torch import nn\n"

BLOCK = """
class Block(nn.Module):
    def __init__(self, cin, first):
        super().__init__()
        self.first = first
        self.conv = nn.Conv2d(cin, cin, 1)

    def forward(self, x):
        return self.conv(x)
"""


def _flag(const: object) -> Value:
    return Value(kind=Kind.SCALAR, grad=Grad.UNTRACKED, const=const)  # type: ignore[arg-type]


def _facts(**parameters: Value) -> CallerFacts:
    return CallerFacts(dict(parameters), True)


def _sites(constructions: str) -> dict[int, bool | None]:
    """The flag of each construction of `Block` with a view of its own, by line."""
    source = HEADER + BLOCK + textwrap.dedent(constructions)
    tree = ast.parse(source)
    init = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__"
    )
    calls = {
        id(n): n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "Block"
    }
    facts = learn_caller_facts(tree, source).get(id(init))
    if facts is None:
        return {}
    found: dict[int, bool | None] = {}
    for key, site in facts.sites:
        const = site.parameters["first"].const
        found[calls[key]] = const if type(const) is bool else None
    return found


def test_a_flag_the_joined_facts_do_not_know_sets_an_instance_apart() -> None:
    joined = _facts(cin=UNKNOWN, first=UNKNOWN)
    expected = (("cin", 3), ("first", True))
    assert distinct_flags(_facts(cin=_flag(3), first=_flag(True)), joined) == expected


def test_a_flag_every_construction_agrees_on_sets_nothing_apart() -> None:
    joined = _facts(first=_flag(True))
    assert distinct_flags(_facts(first=_flag(True)), joined) == ()


def test_numbers_and_strings_set_an_instance_apart() -> None:
    # `if stride != 1:` / `if mode == "conv":` in `__init__` decide which layers it keeps.
    joined = _facts(cin=UNKNOWN, mode=UNKNOWN)
    site = _facts(cin=_flag(3), mode=_flag("conv"))
    assert distinct_flags(site, joined) == (("cin", 3), ("mode", "conv"))


def test_a_number_every_construction_agrees_on_sets_nothing_apart() -> None:
    assert distinct_flags(_facts(cin=_flag(3)), _facts(cin=_flag(3))) == ()


def test_a_value_that_is_no_setting_sets_nothing_apart() -> None:
    assert distinct_flags(_facts(scale=_flag(0.5)), _facts(scale=UNKNOWN)) == ()


def test_views_are_bounded_by_distinct_flag_sets() -> None:
    joined = _facts(**{f"f{i}": UNKNOWN for i in range(MAX_VIEWS + 2)})
    by_call: dict[int, CallerFacts | None] = {
        i: _facts(**{f"f{i}": _flag(True)}) for i in range(MAX_VIEWS + 2)
    }
    assert len(instance_sites(by_call, joined)) == MAX_VIEWS


def test_an_unmapped_construction_sets_no_instance_apart() -> None:
    joined = _facts(first=UNKNOWN)
    assert instance_sites({1: _facts(first=_flag(True)), 2: None}, joined) == ()


def test_constructions_passing_both_flags_each_get_their_own() -> None:
    found = _sites("a = Block(3, False)\nb = Block(3, first=True)\n")
    assert sorted(found.values(), key=str) == [False, True]


def test_constructions_agreeing_on_every_setting_need_no_view() -> None:
    assert _sites("a = Block(3, True)\nb = Block(3, first=True)\n") == {}


def test_constructions_passing_different_numbers_each_get_their_own() -> None:
    assert list(_sites("a = Block(3, True)\nb = Block(4, True)\n").values()) == [True, True]


def test_a_flag_computed_in_a_loop_is_not_one_bool() -> None:
    found = _sites("a = Block(3, True)\nbs = [Block(3, i == 0) for i in range(2)]\n")
    assert None not in found.values()
    assert list(found.values()) == [True]

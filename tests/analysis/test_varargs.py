"""`*args` parameters hold what callers pass beyond the named positionals.

`def plot_maps(*arrays)` called as `plot_maps(out, out2)` binds `arrays` to the tuple
`(out, out2)`: joined over every call of the file (call sites), and per call in a run in
context. `f(*xs)` gives the tuple `xs`'s elements or items. Nothing is learnt from callers
the file does not show or from unpacking an unknown value; keywords go to `**kwargs`.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.call_sites import may_learn, passed_arguments
from gradguard.analysis.events import Conversion
from gradguard.analysis.model import analyse_module, learn_caller_facts
from gradguard.analysis.values import UNKNOWN, Grad, Kind, Value
from tests.analysis.test_value_facets import fact_at

PLOT = """
def plot_maps(*arrays):
    for a in arrays:
        shown = a  # <- shown
"""


def _item_facts(snippet: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Kind, Grad]:
    value = fact_at(PLOT + textwrap.dedent(snippet), monkeypatch)
    return value.kind, value.grad


def test_the_extra_positional_values_are_the_items_of_the_tuple(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = _item_facts("plot_maps(model(x), model(x) * 2)\n", monkeypatch)
    assert found == (Kind.TENSOR, Grad.TRACKED)


def test_calls_passing_different_numbers_of_values_join(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = "plot_maps(model(x))\nplot_maps(model(x), model(x) + 1, model(x) * 3)\n"
    assert _item_facts(calls, monkeypatch) == (Kind.TENSOR, Grad.TRACKED)


def test_unpacking_a_list_of_known_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """`plot_maps(*heat)` with `heat` built by a comprehension: each item of `heat`."""
    calls = "heat = [model(x)[i] for i in range(3)]\nplot_maps(*heat)\n"
    assert _item_facts(calls, monkeypatch) == (Kind.TENSOR, Grad.TRACKED)


def test_unpacking_a_tuple_of_known_elements_after_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = "pair = (model(x), model(x) * 2)\nplot_maps(model(x), *pair)\n"
    assert _item_facts(calls, monkeypatch) == (Kind.TENSOR, Grad.TRACKED)


def test_unpacking_a_tensor_gives_its_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _item_facts("plot_maps(*model(x))\n", monkeypatch) == (Kind.TENSOR, Grad.TRACKED)


def test_an_element_read_by_index_is_that_value(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
    def pick(*arrays):
        second = arrays[1]  # <- second
        return second
    pick(model(x).detach(), model(x))
    """
    second = fact_at(snippet, monkeypatch)
    assert (second.kind, second.grad) == (Kind.TENSOR, Grad.TRACKED)


@pytest.mark.parametrize(
    "calls",
    [
        pytest.param("plot_maps(*loaded())\n", id="unpacking an unknown value"),
        pytest.param("plot_maps(model(x))\nregister(plot_maps)\n", id="passed as a callback"),
        pytest.param("plot_maps(model(x).detach(), model(x))\n", id="one element detached"),
        pytest.param("plot_maps(model(x))\nplot_maps(x)\n", id="one call passes no history"),
        pytest.param("plot_maps(*{'a': model(x)})\n", id="unpacking a dict gives its keys"),
        pytest.param("plot_maps(*model(x).detach())\n", id="unpacking a detached tensor"),
    ],
)
def test_unknown_callers_leave_the_items_unknown(
    calls: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _item_facts(calls, monkeypatch)[1] is not Grad.TRACKED


def test_under_no_grad_the_items_have_no_history(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = "with torch.no_grad():\n    plot_maps(model(x), model(x) * 2)\n"
    assert _item_facts(calls, monkeypatch) == (Kind.TENSOR, Grad.UNTRACKED)


def test_keyword_arguments_stay_out_of_the_tuple_and_fill_kwargs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`arrays=` cannot name a `*args` parameter: it goes to `**named` with the rest (see
    `test_keyword_arguments.py`), and the tuple gets nothing."""
    snippet = """
    def plot_named(*arrays, **named):
        for a in named.values():
            shown = a  # <- shown
        return arrays
    plot_named(arrays=model(x), other=model(x))
    """
    assert fact_at(snippet, monkeypatch).grad is Grad.TRACKED
    arrays = """
    def plot_named(*arrays, **named):
        for a in named.values():
            print(a.sum())
        kept = arrays  # <- kept
    plot_named(arrays=model(x), other=model(x))
    """
    assert fact_at(arrays, monkeypatch).elements is None


@pytest.mark.parametrize(
    ("calls", "items"),
    [
        ("plot_maps(1)\nplot_maps(2, 3)\n", Kind.SCALAR),
        ("plot_maps(1)\nplot_maps('a')\n", Kind.UNKNOWN),  # a tuple of nothing in common
        ("plot_maps(1)\nplot_maps()\n", None),  # no values: nothing known of the tuple
    ],
)
def test_the_caller_facts_join_the_tuples_of_every_call(calls: str, items: Kind | None) -> None:
    source = PLOT + calls
    tree = ast.parse(source)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    facts = learn_caller_facts(tree, source).get(id(function))
    if items is None:
        assert facts is None
        return
    assert facts is not None
    arrays = facts.parameters["arrays"]
    assert arrays.kind is Kind.SEQUENCE and arrays.items is not None
    assert arrays.items.kind is items and arrays.elements is None


def test_passed_arguments_gives_the_tuple_to_a_run_in_context() -> None:
    tree = ast.parse("def f(a, *rest, key=None): pass\nf(1, 2, 3, key=4)\nf(*xs)\nf(1, *xs)\n")
    function, plain, unpacked_all, unpacked_rest = tree.body
    assert isinstance(function, ast.FunctionDef)
    calls = [s.value for s in (plain, unpacked_all, unpacked_rest) if isinstance(s, ast.Expr)]
    assert all(isinstance(c, ast.Call) for c in calls)
    one, two, three, four = (Value(kind=Kind.SCALAR, const=n) for n in range(1, 5))
    plain_call, all_call, rest_call = (c for c in calls if isinstance(c, ast.Call))
    passed = passed_arguments(function, plain_call, [one, two, three, four], skip_self=False)
    assert passed is not None
    assert passed["a"] is one and passed["key"] is four
    assert passed["rest"].elements == (two, three)
    # `f(*xs)`: `xs` would fill `a` too, by a length not known here.
    listed = Value(kind=Kind.SEQUENCE, elements=(one, two))
    assert passed_arguments(function, all_call, [listed], skip_self=False) is None
    passed = passed_arguments(function, rest_call, [one, listed], skip_self=False)
    assert passed is not None and passed["rest"].elements == (one, two)
    passed = passed_arguments(function, rest_call, [one, UNKNOWN], skip_self=False)
    assert passed is not None and "rest" not in passed


def test_a_call_of_a_function_that_is_not_a_candidate_runs_it_with_its_tuple() -> None:
    """`show` is also handed to unknown code (not every call is seen), but the call
    `show(out)` runs it with `out`: the run in context sees the conversion."""
    source = textwrap.dedent(
        """
        import torch
        from torch import nn

        def show(*arrays):
            for a in arrays:
                a.numpy()

        def main():
            model = nn.Linear(2, 2)
            show(model(torch.randn(3, 2)))
            callbacks.append(show)
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    converted = [e for e in analysis.events.of(Conversion) if e.value.grad is Grad.TRACKED]
    assert converted and {e.node.lineno for e in converted} == {7}
    assert all(isinstance(e.context, ast.Call) and e.context.lineno == 11 for e in converted)


@pytest.mark.parametrize(
    ("body", "learns"),
    [
        ("for a in arrays:\n        a.numpy()", True),  # iterates its tuple
        ("return arrays[0].numpy()", True),  # an element, converted
        ("first = arrays[0]", True),  # an element, taken apart
        ("return zip(arrays, names)", True),  # handed on
        ("return len(names)", False),
    ],
)
def test_a_function_iterating_or_indexing_its_vararg_learns(body: str, learns: bool) -> None:
    tree = ast.parse(f"def f(*arrays):\n    names = 1\n    {body}\n")
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert may_learn(function) is learns

"""`**kwargs` parameters, `f(**d)` calls and merged dicts.

A call of a function of the file binds its `**kwargs` parameter to the dict of the keywords
no other parameter takes (`{}` when there are none), joined over every call; `f(**d)` of a
dict whose every key is known passes those keys as keywords. `{**a, **b}` and `dict(a, **b)`
of such dicts hold every key, a later one winning. Unknown stays unknown: `**d` of a dict
whose keys are not all known leaves every parameter it could fill unknown (what the call
names is still known), a merge with such a dict is unknown, and a call giving a name twice
(a TypeError) teaches nothing.
"""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind, Value
from tests.analysis.test_value_facets import fact_at

# `configure` reads its options (so its callers teach it), `got` is the marked name.
CONFIGURE = """
def configure(width, depth=2, **options):
    print(options)
    print(width.sum() if options else width)
    got = {}  # <- got
"""


def _bound(expr: str, calls: str, monkeypatch: pytest.MonkeyPatch) -> Value:
    """What `got = <expr>` holds in `configure` when the file calls it as `calls`."""
    snippet = CONFIGURE.replace("got = {}", f"got = {expr}") + calls
    return fact_at(snippet, monkeypatch)


def _const(value: Value) -> object:
    """The literal a value is known to be (None for the None literal), else `unknown`."""
    if value.kind is Kind.NONE:
        return None
    return value.const if value.const is not None else "unknown"


# (case, what `got` is bound to, the calls, the literal expected)
KWARGS_FACTS = [
    ("an extra keyword", 'options["lr"]', "configure(x, lr=0.1)\n", 0.1),
    ("get of a key passed", 'options.get("lr", 1.0)', "configure(x, lr=0.1)\n", 0.1),
    ("get of a key not passed", 'options.get("lr", 1.0)', "configure(x, depth=3)\n", 1.0),
    ("get without a default", 'options.get("lr")', "configure(x, scale=2)\n", None),
    ("named parameters stay out", '"depth" in options', "configure(x, depth=3, lr=1)\n", False),
    ("every call passes it", 'options["lr"]', "configure(x, lr=0.1)\nconfigure(x, lr=0.1)\n", 0.1),
    ("calls passing other values", 'options["lr"]', "configure(x, lr=0.1)\nconfigure(x, lr=2)\n",
     "unknown"),
    ("calls passing other keys", 'options.get("lr", 1.0)',
     "configure(x, lr=0.1)\nconfigure(x, seed=2)\n", "unknown"),
    ("a known dict unpacked", "depth", 'configure(x, **{"depth": 5, "lr": 1})\n', 5),
    ("its other keys go to options", 'options["lr"]', 'configure(x, **{"depth": 5, "lr": 1})\n', 1),
    ("a dict built by dict()", "depth", "d = dict(width=x, depth=4)\nconfigure(**d)\n", 4),
    ("a default the dict leaves out", "depth", 'configure(x, **{"lr": 1})\n', 2),
    ("an unknown dict unpacked", "depth", "configure(x, **load())\n", "unknown"),
    ("options of an unknown dict", 'options.get("lr", 1.0)', "configure(x, **load())\n",
     "unknown"),
    ("an unknown dict in one call", "depth", "configure(x, depth=2)\nconfigure(x, **load())\n",
     "unknown"),
    ("a name given twice", 'options.get("lr", 1.0)', 'configure(x, width=x, lr=3)\n', "unknown"),
    ("a keyword given twice", 'options.get("lr", 1.0)', 'configure(x, lr=3, **{"lr": 4})\n',
     "unknown"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "expr", "calls", "expected"), KWARGS_FACTS, ids=[row[0] for row in KWARGS_FACTS]
)
def test_what_kwargs_and_unpacked_dicts_bind(
    case: str, expr: str, calls: str, expected: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _const(_bound(expr, calls, monkeypatch)) == expected, case


def test_the_named_parameter_of_an_unknown_unpacking_is_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`configure(x, **load())`: `width` is given by position, so it is `x` whatever the dict."""
    value = _bound("width", "configure(x, **load())\n", monkeypatch)
    assert (value.kind, value.grad) == (Kind.TENSOR, Grad.UNTRACKED)


def test_kwargs_without_extra_keywords_is_the_empty_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    value = _bound("options", "configure(x, depth=3)\n", monkeypatch)
    assert (value.kind, value.fields, value.elements) == (Kind.MAPPING, (), ())


def test_forwarded_kwargs_reach_the_next_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """`build(**options)` hands the dict on: its keys fill `build`'s parameters."""
    snippet = """
    def build(hidden, frozen=False):
        got = frozen  # <- got
        return nn.Linear(hidden, hidden).requires_grad_(not frozen)
    def run(**options):
        return build(**options)
    run(hidden=4, frozen=True)
    """
    assert fact_at(snippet, monkeypatch).const is True


def test_a_tensor_passed_as_a_keyword_keeps_its_history(monkeypatch: pytest.MonkeyPatch) -> None:
    value = _bound('options["target"]', "configure(x, target=model(x))\n", monkeypatch)
    assert (value.kind, value.grad) == (Kind.TENSOR, Grad.TRACKED)


# (case, snippet binding `got`, the keys in order or None when not all known, `got["lr"]`)
MERGE_FACTS = [
    ("two displays", 'got = {**{"lr": 1, "wd": 0}, **{"lr": 2}}  # <- got', ("lr", "wd"), 2),
    ("a key after the parts", 'a = {"lr": 1}\ngot = {**a, "lr": 3, "b": 0}  # <- got',
     ("lr", "b"), 3),
    ("a key before the parts", 'a = {"lr": 1}\ngot = {"lr": 3, **a}  # <- got', ("lr",), 1),
    ("dict of a dict and keywords", 'a = {"lr": 1}\ngot = dict(a, lr=5, wd=0)  # <- got',
     ("lr", "wd"), 5),
    ("dict of two unpacked dicts", 'a = {"lr": 1}\nb = {"wd": 0}\ngot = dict(**a, **b)  # <- got',
     ("lr", "wd"), 1),
    ("a copy", 'a = {"lr": 1}\ngot = dict(a)  # <- got', ("lr",), 1),
    ("an unknown part", 'got = {**load(), "lr": 1}  # <- got', None, None),
    ("dict of an unknown part", 'got = dict(load(), lr=1)  # <- got', None, None),
    ("a dict given a key twice", 'a = {"lr": 1}\ngot = dict(**a, lr=2)  # <- got', None, None),
    ("a dict with keys added", 'a = {"lr": 1}\na[input()] = 2\ngot = {**a}  # <- got', None, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "snippet", "keys", "lr"), MERGE_FACTS, ids=[row[0] for row in MERGE_FACTS]
)
def test_merged_dicts(
    case: str,
    snippet: str,
    keys: tuple[str, ...] | None,
    lr: int | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = fact_at(snippet, monkeypatch)
    if keys is None:
        assert value.kind is not Kind.MAPPING or value.fields is None, case
        return
    assert (value.kind, value.fields) == (Kind.MAPPING, keys), case
    assert value.elements is not None and value.items is None
    assert value.elements[keys.index("lr")].const == lr, case

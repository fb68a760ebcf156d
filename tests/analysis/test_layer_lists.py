"""The first layer of a list grown by `+=`, `append`, `insert`, `extend` before it is unpacked
into `nn.Sequential(*layers)` (`gradguard.analysis.layer_lists.first_layer`), and the fact it
gives: the container changes its input in place when that layer does."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis import layer_lists
from tests.analysis.test_value_facets import fact_at


def _first(source: str, decided: bool | None = None) -> str | None:
    """The first layer (as source text) of the only `nn.Sequential(*...)` call of the only
    function of `source`, with every decidable `if` test taken as `decided`."""
    tree = ast.parse(textwrap.dedent(source))
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    call = next(
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        if n.func.attr == "Sequential"
    )
    found = layer_lists.first_layer(function, call, lambda test: decided)
    return ast.unparse(found) if found is not None else None


GROWN = [
    (
        "literal then append",
        """
        def build(d):
            layers = [nn.ReLU(inplace=True)]
            layers.append(nn.Linear(d, d))
            return nn.Sequential(*layers)
        """,
        "nn.ReLU(inplace=True)",
    ),
    (
        "empty list, +=, append, extend",
        """
        def build(d):
            layers = []
            layers += [nn.Dropout(0.1, inplace=True), nn.Linear(d, d)]
            layers.append(nn.ReLU())
            layers.extend([nn.Linear(d, d)])
            return nn.Sequential(*layers)
        """,
        "nn.Dropout(0.1, inplace=True)",
    ),
    (
        "a loop, a slice, then insert at 0 whatever the list held",
        """
        def build(self, reps, d):
            rep = []
            for _ in range(reps):
                rep += [self.relu, nn.Linear(d, d)]
            rep = rep[1:]
            rep.insert(0, self.relu)
            if d > 4:
                rep.append(nn.Linear(d, d))
            return nn.Sequential(*rep)
        """,
        "self.relu",
    ),
    (
        "every branch puts the same layer first",
        """
        def build(wide, d):
            layers = []
            if wide:
                layers.append(nn.ReLU(inplace=True))
                layers.append(nn.Linear(d, 2 * d))
            else:
                layers.append(nn.ReLU(inplace=True))
            return nn.Sequential(*layers)
        """,
        "nn.ReLU(inplace=True)",
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [case[1:] for case in GROWN], ids=[c[0] for c in GROWN]
)
def test_the_first_layer_of_a_grown_list(source: str, expected: str) -> None:
    assert _first(source) == expected


UNKNOWN_HEAD = [
    (
        "a branch that may put another layer first",
        """
        def build(pre, d):
            layers = [nn.Linear(d, d)]
            if pre:
                layers.insert(0, nn.ReLU(inplace=True))
            return nn.Sequential(*layers)
        """,
    ),
    (
        "appended to a list of unknown head",
        """
        def build(d):
            layers = list(make())
            layers.append(nn.ReLU(inplace=True))
            return nn.Sequential(*layers)
        """,
    ),
    (
        "a loop that may not run",
        """
        def build(n, d):
            layers = []
            for _ in range(n):
                layers.append(nn.ReLU(inplace=True))
            layers.append(nn.Linear(d, d))
            return nn.Sequential(*layers)
        """,
    ),
    (
        "the list passed elsewhere before the call",
        """
        def build(d):
            layers = [nn.ReLU(inplace=True)]
            reorder(layers)
            return nn.Sequential(*layers)
        """,
    ),
    (
        "a method that may reorder it",
        """
        def build(d):
            layers = [nn.ReLU(inplace=True), nn.Linear(d, d)]
            layers.reverse()
            return nn.Sequential(*layers)
        """,
    ),
    (
        "insert at a position that is not certainly the head",
        """
        def build(i, d):
            layers = [nn.Linear(d, d)]
            layers.insert(i, nn.ReLU(inplace=True))
            return nn.Sequential(*layers)
        """,
    ),
    (
        "the name put first rebound afterwards",
        """
        def build(d):
            act = nn.ReLU(inplace=True)
            layers = [act, nn.Linear(d, d)]
            act = nn.Identity()
            return nn.Sequential(*layers)
        """,
    ),
]


@pytest.mark.parametrize(
    "source", [case[1] for case in UNKNOWN_HEAD], ids=[c[0] for c in UNKNOWN_HEAD]
)
def test_no_first_layer_when_it_is_uncertain(source: str) -> None:
    assert _first(source) is None


def test_a_decided_test_takes_its_branch_only() -> None:
    source = """
    def build(start_with_relu):
        layers = [nn.Linear(4, 4)]
        if start_with_relu:
            layers.insert(0, nn.ReLU(inplace=True))
        return nn.Sequential(*layers)
    """
    assert _first(source, decided=True) == "nn.ReLU(inplace=True)"
    assert _first(source, decided=False) == "nn.Linear(4, 4)"
    assert _first(source) is None


def test_a_list_whose_inserted_first_layer_is_in_place_changes_its_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seq = fact_at(
        """
        def build(n):
            relu = nn.ReLU(inplace=True)
            layers = []
            for _ in range(n):
                layers += [relu, nn.Linear(2, 2)]
            layers = layers[1:]
            layers.insert(0, relu)
            layers.append(nn.Linear(2, 2))
            seq = nn.Sequential(*layers)  # <- seq
            return seq
        """,
        monkeypatch,
    )
    assert seq.module is not None
    assert seq.module.changes_input == "torch.nn.ReLU"


def test_a_list_literal_whose_first_layer_is_in_place_changes_its_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seq = fact_at(
        """
        layers = [nn.Dropout(0.2, inplace=True), nn.Linear(2, 2)]
        seq = nn.Sequential(*layers)  # <- seq
        """,
        monkeypatch,
    )
    assert seq.module is not None
    assert seq.module.changes_input == "torch.nn.Dropout"


@pytest.mark.parametrize("inserted", ["nn.ReLU()", "nn.Linear(2, 2)", "nn.ReLU(inplace=False)"])
def test_an_out_of_place_layer_put_first_changes_nothing(
    inserted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seq = fact_at(
        f"""
        def build():
            layers = [nn.ReLU(inplace=True), nn.Linear(2, 2)]
            layers.insert(0, {inserted})
            seq = nn.Sequential(*layers)  # <- seq
            return seq
        """,
        monkeypatch,
    )
    assert seq.module is not None
    assert seq.module.changes_input is None


def test_a_branch_that_may_put_another_layer_first_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seq = fact_at(
        """
        def build(pre):
            layers = [nn.ReLU(inplace=True)]
            if pre:
                layers.insert(0, nn.Linear(2, 2))
            seq = nn.Sequential(*layers)  # <- seq
            return seq
        """,
        monkeypatch,
    )
    assert seq.module is not None
    assert seq.module.changes_input is None


def test_an_in_place_layer_inserted_at_the_head_changes_its_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seq = fact_at(
        """
        def build(n):
            layers = list(make(n))
            layers.insert(0, nn.ReLU(inplace=True))
            seq = nn.Sequential(*layers)  # <- seq
            return seq
        """,
        monkeypatch,
    )
    assert seq.module is not None
    assert seq.module.changes_input == "torch.nn.ReLU"


@pytest.mark.parametrize(
    ("appended", "grad"),
    [
        ("nn.ReLU()", "unknown"),  # layers with and without parameters: not known
        ("nn.Linear(2, 2)", "tracked"),  # every layer has parameters
    ],
)
def test_a_list_of_layers_with_and_without_parameters_is_no_parameterless_model(
    appended: str, grad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list grown in a loop holds its layers joined: a layer with parameters and one
    without join into a module whose output may or may not have history (the join once
    claimed "no parameters", so the model's output had none: a false GG108)."""
    out = fact_at(
        f"""
        def build(n):
            layers = []
            for _ in range(n):
                layers.append({appended})
            layers.append(nn.Linear(2, 2))
            return nn.Sequential(*layers)

        def fit(n):
            out = build(n)(torch.randn(3, 2))  # <- out
            return out
        """,
        monkeypatch,
    )
    assert out.grad.value == grad

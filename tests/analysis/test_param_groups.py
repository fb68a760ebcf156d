"""Facts for GG405's question "which tensors does an optimizer certainly get, and are they
leaves": dropout that returns its input object itself, parameter groups and concatenated
lists (`torch_calls._dropout_output`, `training_effects._optimized_tensors`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import OptimizedTensor
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at

LEAF = "w = nn.Parameter(torch.randn(3))\n"


@pytest.mark.parametrize(
    "call",
    [
        "F.dropout(w, p=0.3, training=False)",
        "F.dropout(w, 0.0)",
        "F.dropout2d(w, 0.3, False)",
        "F.dropout1d(w, p=0, training=True)",
        "F.alpha_dropout(w, 0.3)",  # training defaults to False
        "F.feature_alpha_dropout(w, p=0.5)",
        "torch.dropout(w, 0.3, False)",
    ],
)
def test_dropout_that_is_off_returns_its_input_itself(
    call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = fact_at(f"{LEAF}d = {call}  # <- d\n", monkeypatch)
    assert d.grad is Grad.TRACKED and d.leaf and not d.has_history


@pytest.mark.parametrize(
    "call",
    [
        "F.dropout(w, p=0.3, training=flag)",
        "F.dropout(w, p=rate)",
        "nn.Dropout(0.3)(w)",
        "F.alpha_dropout(w, 0.3, training=flag)",
    ],
)
def test_dropout_that_may_be_off_is_not_known_to_have_history(
    call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = f"import sys\nflag = len(sys.argv) > 1\nrate = float(sys.argv[1])\n{LEAF}"
    d = fact_at(f"{snippet}d = {call}  # <- d\n", monkeypatch)
    assert not d.has_history and not d.leaf


@pytest.mark.parametrize(
    "call",
    [
        "F.dropout(w, p=0.3)",
        "F.dropout(w, 0.3, True)",
        "F.dropout3d(w, 0.3, False)",  # dropout3d always computes a new tensor
        "F.dropout(w * 2, 0.3, False)",  # off: the input itself, which has history
    ],
)
def test_dropout_that_is_on_has_history(call: str, monkeypatch: pytest.MonkeyPatch) -> None:
    d = fact_at(f"{LEAF}d = {call}  # <- d\n", monkeypatch)
    assert d.has_history


def test_a_sum_of_lists_of_known_elements_lists_both(monkeypatch: pytest.MonkeyPatch) -> None:
    both = fact_at(f"{LEAF}b = w * 2\nboth = [w] + [b, x]  # <- both\n", monkeypatch)
    assert both.kind is Kind.SEQUENCE and both.elements is not None
    assert [e.has_history for e in both.elements] == [False, True, False]


def _optimized(body: str) -> list[str]:
    """The text of every tensor given to an optimizer, as `OptimizedTensor` names them."""
    source = "import torch\nfrom torch import nn\nmodel = nn.Linear(2, 2)\n"
    source += textwrap.dedent(body)
    uses = analyse_module(ast.parse(source), source).events.of(OptimizedTensor)
    return [ast.unparse(use.target) for use in uses]


def test_tensors_of_parameter_groups_are_optimized() -> None:
    body = """
    w = torch.randn(3, requires_grad=True) * 2
    b = torch.zeros(3, requires_grad=True)
    opt = torch.optim.SGD([{"params": [w]}, {"params": b, "lr": 0.1}], lr=0.1)
    """
    assert _optimized(body) == ["w", "b"]


def test_tensors_of_a_list_of_known_elements_are_optimized() -> None:
    body = """
    w = torch.randn(3, requires_grad=True) * 2
    b = torch.zeros(3, requires_grad=True)
    params = [w] + [b]
    groups = [{"params": params, "weight_decay": 0.0}]
    first = torch.optim.SGD(params, lr=0.1)
    second = torch.optim.AdamW(params=groups)
    """
    assert _optimized(body) == ["w", "b", "w", "b"]


def test_unknown_lists_and_module_parameters_are_not_optimized_tensors() -> None:
    body = """
    w = torch.randn(3, requires_grad=True) * 2
    grown = []
    for _ in range(3):
        grown.append(w)
    opt = torch.optim.SGD([{"params": model.parameters()}, {"params": grown}], lr=0.1)
    other = torch.optim.SGD([{"params": [w], **{"params": []}}], lr=0.1)
    """
    assert _optimized(body) == []

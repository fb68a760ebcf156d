"""What `t.requires_grad_(flag)` leaves in `t` (`torch_calls._after_requires_grad`).

Unlike the setter, the method asked for True does not raise on a tensor with history: it
returns that tensor unchanged, grad_fn and all. A tensor certainly without history becomes a
leaf that requires grad; of a tensor whose grad is unknown, whether the result is a leaf is
unknown too, so its grad stays unknown."""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad
from gradguard.core.engine import check_source
from gradguard.core.settings import Settings
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    "snippet",
    [
        "y = model(x)\ny.requires_grad_()  # <- y",
        "y = model(x)\ny.requires_grad_(True)  # <- y",
        "y = model(x)\nz = y.requires_grad_()  # <- z",
        "w = torch.ones(2, requires_grad=True)\n"
        "y = w * 2\n"
        "y.requires_grad_(requires_grad=True)  # <- y",
    ],
)
def test_a_tensor_with_history_keeps_it(snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(snippet, monkeypatch)
    assert value.has_history
    assert not value.leaf


def test_the_receiver_is_returned_with_its_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    after = fact_at("y = model(x).sum()\ny.requires_grad_()  # <- y", monkeypatch)
    assert {saved.node.lineno for saved in after.graph} == {6}  # the line of `model(x)`
    assert after.origin is not None and after.origin.lineno == 6


@pytest.mark.parametrize(
    "snippet",
    [
        "x_adv = x.detach().requires_grad_()  # <- x_adv",
        "y = torch.zeros(3)\ny.requires_grad_()  # <- y",
        "w = torch.ones(2, requires_grad=True)\nw.requires_grad_()  # <- w",
        "y = model(x).detach()\ny.requires_grad_()  # <- y",
    ],
)
def test_a_tensor_without_history_becomes_a_leaf_requiring_grad(
    snippet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(snippet, monkeypatch)
    assert value.grad is Grad.TRACKED
    assert value.leaf


def test_forced_leaf_after_a_cut_is_still_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at("y = model(x).detach().sum()\ny.requires_grad_()  # <- y", monkeypatch)
    assert value.forced is not None


def test_of_an_unknown_tensor_leafness_stays_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    # A leaf without grad on one path, a tensor with history on the other.
    snippet = (
        "w = torch.ones(2, requires_grad=True)\n"
        "def f(flag):\n"
        "    y = w * 2 if flag else torch.zeros(2)\n"
        "    y.requires_grad_()  # <- y\n"
        "    return y\n"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.grad is Grad.UNKNOWN
    assert not value.has_history


@pytest.mark.parametrize("forced", ["xb", "torch.sigmoid(xb)"])
def test_batch_data_becomes_a_leaf(forced: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Batch data never requires grad, so it has no history: its grad is unknown only in
    # that the analysis does not say False (`Autograd.batch`).
    snippet = (
        "def train(loader):\n"
        "    for xb, yb in loader:\n"
        "        out = model(xb)\n"
        f"        z = {forced}\n"
        "        z.requires_grad_()  # <- z\n"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.grad is Grad.TRACKED
    assert value.leaf


def test_a_flag_not_known_on_a_tensor_with_history_is_no_leaf(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # True keeps the history; False raises. Either way it is not certainly a leaf.
    snippet = "def f(flag):\n    y = model(x)\n    y.requires_grad_(flag)  # <- y\n    return y\n"
    value = fact_at(snippet, monkeypatch)
    assert not value.leaf


SMOOTHGRAD = """
import torch
def smoothgrad(model, image, n=8):
    total = torch.zeros_like(image)
    for _ in range(n):
        x = {created}
        x.grad.zero_()
        model(x).sum().backward()
        total += x.grad
    return total / n
"""


@pytest.mark.parametrize(
    ("created", "found"),
    [
        # Leaf or not, a fresh tensor asked to require grad has no .grad yet (GG407).
        ("(image + 0.1 * torch.randn_like(image)).requires_grad_()", True),
        ("image.detach().clone().requires_grad_()", True),
        # Not asked to require grad, its grad state unknown: not reported.
        ("image + 0.1 * torch.randn_like(image)", False),
        # Not a fresh tensor: it may carry a .grad from an earlier backward.
        ("image.requires_grad_()", False),
    ],
)
def test_a_fresh_forced_tensor_has_no_grad_yet(created: str, found: bool) -> None:
    source = SMOOTHGRAD.format(created=created)
    findings = check_source(source, settings=Settings(select=("GG407",))).findings
    assert [f.code for f in findings] == (["GG407"] if found else [])

"""Dtypes and devices are not tensors; moves and casts of what `.detach()` gave stay cut;
`torch.tensor(xs)` of a list grown by appends of `.item()` numbers says why it has no
history.

1. `torch.float32`, `torch.long`, `torch.device(...)` (the names of `DTYPE_NAMES` and
   `torch.device`) evaluate to a constant without history, not to an unknown value.
2. `.to(x)`, `.type(x)`, `.type_as(x)` and the other moves and casts give only the receiver's
   history (a tensor argument lends its dtype and device): of what `.detach()` gave, the
   result is still cut, whatever the argument; of a tensor with history, still tracked.
3. A re-wrap of a list built by appends carries the conversion reason of its items (read by
   GG109, GG105 and GG102), not of plain numbers, nor of a list also holding tensors.
"""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind, LossKind
from tests.analysis.test_value_facets import fact_at

# (case, snippet): the marked name is a constant without history, never a tensor.
NOT_TENSORS = [
    ("a dtype", "d = torch.float32  # <- d\n"),
    ("an integer dtype alias", "d = torch.long  # <- d\n"),
    ("a dtype imported by name", "from torch import bfloat16\nd = bfloat16  # <- d\n"),
    ("a device made", "d = torch.device('cuda', 0)  # <- d\n"),
    ("the device class", "d = torch.device  # <- d\n"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "snippet"), NOT_TENSORS, ids=[c[0] for c in NOT_TENSORS])
def test_dtypes_and_devices_are_constants(
    case: str, snippet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(snippet, monkeypatch)
    assert value.kind is Kind.OTHER, case
    assert value.grad is Grad.UNTRACKED, case


def test_a_local_name_shadowing_a_dtype_is_its_own_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shadowed = (
        "from torch import float32\n\n\ndef f(float32):\n    d = float32  # <- d\n    return d\n"
    )
    assert fact_at(shadowed, monkeypatch).kind is Kind.UNKNOWN
    rebound = "from torch import float32\nfloat32 = x\nd = float32  # <- d\n"
    assert fact_at(rebound, monkeypatch).kind is Kind.TENSOR


# (case, snippet): what `.detach()` gave, moved or cast, is still cut by the detach.
DETACHED_CASTS = [
    ("to a dtype", "def f(v):\n    y = v.detach().to(torch.float32)  # <- y\n    return y\n"),
    ("to a dtype keyword", "def f(v):\n"
     "    y = v.detach().to(dtype=torch.float64)  # <- y\n    return y\n"),
    ("to a device", "def f(v):\n"
     "    y = v.detach().to(torch.device('cpu'))  # <- y\n    return y\n"),
    ("to an unknown tensor's dtype", "def f(v, w):\n"
     "    y = v.detach().to(w)  # <- y\n    return y\n"),
    ("type_as an unknown tensor", "def f(v, w):\n"
     "    y = v.detach().type_as(w)  # <- y\n    return y\n"),
    ("type given a dtype", "def f(v):\n"
     "    y = v.detach().type(torch.float16)  # <- y\n    return y\n"),
    ("cuda on an unknown device", "def f(v, dev):\n"
     "    y = v.detach().cuda(dev)  # <- y\n    return y\n"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "snippet"), DETACHED_CASTS, ids=[c[0] for c in DETACHED_CASTS])
def test_a_detached_value_moved_or_cast_stays_cut(
    case: str, snippet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(snippet, monkeypatch)
    assert value.grad is Grad.UNTRACKED, case
    assert value.loss is not None and value.loss.kind is LossKind.DETACH, case


def test_a_tensor_with_history_cast_like_another_stays_tracked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = fact_at("ref = torch.zeros(1)\ny = model(x).to(ref)  # <- y\n", monkeypatch)
    assert value.grad is Grad.TRACKED


def test_type_without_a_dtype_is_not_a_cast(monkeypatch: pytest.MonkeyPatch) -> None:
    """`t.type()` returns the type's name, a string."""
    value = fact_at("def f(v):\n    y = v.detach().type()  # <- y\n    return y\n", monkeypatch)
    assert value.loss is None


APPENDED = "lps = []\nfor i in range(3):\n    out = model(x).sum()\n{append}loss = torch.tensor(lps).sum()  # <- loss\n"  # noqa: E501


def test_a_rewrap_of_appended_item_numbers_says_they_were_converted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = fact_at(APPENDED.format(append="    lps.append(out.item())\n"), monkeypatch)
    assert value.loss is not None and value.loss.kind is LossKind.REWRAP
    assert value.loss.inner is not None and value.loss.inner.kind is LossKind.CONVERSION


@pytest.mark.parametrize(
    ("case", "append"),
    [
        ("plain numbers", "    lps.append(0.5)\n"),
        ("numbers and tensors with history", "    lps.append(out.item())\n    lps.append(out)\n"),
    ],
)
def test_a_rewrap_of_other_lists_names_no_cut(
    case: str, append: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(APPENDED.format(append=append), monkeypatch)
    assert value.loss is None or value.loss.inner is None, case

"""Known numbers and what a join of two paths keeps of an object's attributes.

* Float literals are known numbers like ints: `-0.5` and `cfg["w"] > 0` of known numbers
  fold, so a branch on a numeric setting is decided (`if cfg["lambda"] > 0:`).
* An attribute stored into on one path only (an item of a buffer written in a loop that may
  not run) joins with what reading it gives on the other path: the value its class keeps.
"""

from __future__ import annotations

import pytest

from gradguard.analysis.values import Grad, Kind
from tests.analysis.test_value_facets import fact_at


@pytest.mark.parametrize(
    ("test", "known"),
    [
        ("0.5 > 0", True),
        ("0.0 > 0", False),
        ("-0.5 >= 0.0", False),
        ("2 < 3.5", True),
        ("1e-3 <= 0.001", True),
        ("weights['cls'] > 0", True),
        ("weights['aux'] > 0", False),
        ("0.5 == 0.5", True),
        # Unknown operands, strings ordered, chained comparisons: not folded.
        ("rate > 0", None),
        ("'a' < 'b'", None),
        ("0 < 0.5 < 1", None),
    ],
)
def test_comparisons_of_known_numbers_fold(
    test: str, known: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = "weights = {'cls': 1.0, 'aux': 0.0}\nrate = float(input())\n"
    source = f"{settings}flag = {test}  # <- flag\n"
    assert fact_at(source, monkeypatch).const is known


def test_a_decided_branch_on_a_float_setting_runs_one_path(monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        "scale = 0.0\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "if scale > 0:\n"
        "    out = w * scale\n"
        "else:\n"
        "    out = w.detach()\n"
        "y = out  # <- y\n"
    )
    assert fact_at(source, monkeypatch).grad is Grad.UNTRACKED


BANK = """
class Bank(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("centers", torch.randn(5, 3))
        self.scale = nn.Parameter(torch.ones(1))

    def update(self, labels, feats):
{body}
        y = {read}  # <- y
        return y
"""


@pytest.mark.parametrize(
    ("body", "read", "grad"),
    [
        # The buffer stored into in a loop that may not run: a buffer either way.
        ("        for c in labels.unique():\n            self.centers[c] = 0.0", "self.centers",
         Grad.UNTRACKED),
        ("        if labels.numel() > 0:\n            self.centers[0] = 1.0", "self.centers",
         Grad.UNTRACKED),
        # A value with history stored in on one path: the join is not the kept buffer.
        ("        if labels.numel() > 0:\n            self.centers[0] = feats.sum() * self.scale",
         "self.centers", Grad.UNKNOWN),
    ],
)  # fmt: skip
def test_an_attribute_stored_on_one_path_joins_with_what_its_class_keeps(
    body: str, read: str, grad: Grad, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(BANK.format(body=body, read=read), monkeypatch)
    assert value.grad is grad
    if grad is Grad.UNTRACKED:
        assert value.kind is Kind.TENSOR

"""GG302 names the backward call that fails as it would be written: a loss that is a sum of
terms is shown parenthesised before `.backward()`, so the message never reads as if only
the last term were backpropagated."""

from __future__ import annotations

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

PROGRAM = """\
import torch

w = torch.randn(3, requires_grad=True)
a = torch.sigmoid(w)
a[0] = 0.0
b = torch.tanh(w)
(a.sum() + b.sum()).backward()
"""


def test_a_sum_of_losses_is_parenthesised_in_the_message() -> None:
    findings = check_source(PROGRAM, settings=Settings(select=("GG302",))).findings
    assert [f.range.start.line for f in findings] == [4]
    assert "`(a.sum() + b.sum()).backward()` fails" in findings[0].message

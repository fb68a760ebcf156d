"""scikit-learn metrics turn their inputs into arrays: a tensor that requires grad given to
one, by position or by name, is a conversion (GG502); other inputs and other functions are
not."""

from __future__ import annotations

import pytest

from gradguard.core.engine import check_source
from gradguard.core.settings import Settings

PRELUDE = """
import torch
from torch import nn
from sklearn import metrics
from sklearn.metrics import roc_auc_score
model = nn.Linear(4, 2)
logits = model(torch.randn(8, 4))
y = torch.tensor([0, 1] * 4)
"""

CASES = [
    ("positional", "roc_auc_score(y, logits[:, 1])", True),
    ("by name", "metrics.r2_score(y_true=y.float(), y_pred=logits[:, 1])", True),
    ("a list of tensors with history", "metrics.mean_squared_error([0.0], [logits.sum()])", True),
    ("class indices", "metrics.accuracy_score(y, logits.argmax(1))", False),
    ("detached", "roc_auc_score(y, logits[:, 1].detach())", False),
    ("a keyword that is no input", "metrics.f1_score(y, y, average=logits)", False),
    ("a function not in the table", "metrics.auc(y, logits[:, 1])", False),
]


@pytest.mark.parametrize(("title", "line", "found"), CASES, ids=[c[0] for c in CASES])
def test_metric_inputs_are_converted(title: str, line: str, found: bool) -> None:
    findings = check_source(PRELUDE + line + "\n", settings=Settings(select=("GG502",))).findings
    assert [f.code for f in findings] == (["GG502"] if found else [])

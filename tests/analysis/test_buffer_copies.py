"""`may_copy_buffers`: whether code of a file may replace a module's buffers by copies."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.buffer_copies import may_copy_buffers

CASES = [
    # Casts of tensors a torch function just made copy no module's buffers.
    ("tensor casts only", "t = torch.arange(4).float()\nu = torch.zeros(2)[0].to('cpu')", False),
    ("no cast at all", "m = Net()\ny = m(x)", False),
    # Anything else may be a module: its cast replaces every buffer it holds.
    ("module moved", "m = Net().to(device)", True),
    ("name cast", "m.half()", True),
    ("torch.nn layer cast", "m = torch.nn.Linear(2, 2).double()", True),
    ("module output cast (may be anything)", "y = m(x).float()", True),
    ("cast of an unknown call", "y = build().cuda()", True),
    # Whole copies: a deep copy or an unpickled module holds new buffers.
    ("deep copy", "import copy\nema = copy.deepcopy(m)", True),
    ("deepcopy imported", "from copy import deepcopy", True),
    ("torch.load", "m = torch.load('model.pt')", True),
    ("pickle", "import pickle", True),
]


@pytest.mark.parametrize(("case", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_may_copy_buffers(case: str, source: str, expected: bool) -> None:
    assert may_copy_buffers(ast.parse(source)) is expected, case

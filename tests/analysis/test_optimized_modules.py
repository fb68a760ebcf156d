"""Which modules a file trains (`gradguard.analysis.optimized_modules.optimized`)."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.optimized_modules import optimized

_CASES = [
    # (source, key, trained?)
    ("opt = torch.optim.SGD(model.parameters(), lr=0.1)", "model", True),
    ("opt = torch.optim.SGD(model.parameters(), lr=0.1)", "teacher", False),
    ("opt = torch.optim.Adam([{'params': net.head.parameters()}])", "net.head", True),
    ("opt = Adam(model.parameters())", "model", False),  # a callee not named `optim`
    ("opt = make_optimizer(model)", "model", True),
    ("opt = make_scheduler(model)", "model", False),  # not an optimizer by its name
    ("opt = model.configure_optimizers(0.1)", "model", True),
    ("opt = self.model.configure_optimizers(0.1)", "self.model", True),
    ("opt = self.model.configure_optimizers(0.1)", "self", True),
    ("for p in model.parameters():\n    p.data -= 0.1 * p.grad", "model", True),
    ("for p in model.parameters():\n    p.requires_grad = False", "model", False),
    (
        "class T:\n    def __init__(self, model):\n        self.model = model\n"
        "        self.opt = torch.optim.Adam(model.parameters())",
        "self.model",
        True,
    ),
    (  # the parameter is rebound before the optimizer is built: not the stored module
        "class T:\n    def __init__(self, model):\n        self.model = model\n"
        "        model = other\n        self.opt = torch.optim.Adam(model.parameters())",
        "self.model",
        False,
    ),
    (  # inside a method of a class, in a nested function
        "class T:\n    def fit(self):\n        def build():\n"
        "            return torch.optim.SGD(self.net.parameters())\n        return build()",
        "self.net",
        True,
    ),
]


@pytest.mark.parametrize(("source", "key", "trained"), _CASES)
def test_optimized(source: str, key: str, trained: bool) -> None:
    assert optimized(ast.parse(source), key) is trained

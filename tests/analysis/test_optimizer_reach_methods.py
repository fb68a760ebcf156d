"""Which methods of a module's own class give nothing of the module away (GG608's
`optimizer_reach._self_kept`): only those may be called on an optimized module."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.name_flow import NameFlow
from gradguard.analysis.optimizer_reach import _self_kept

CASES = [
    ("reads a size for a torch factory", "return torch.zeros(1, self.hidden_size)", True),
    ("calls its own layer", "return self.fc(x)", True),
    ("computes from its own weight", "return x @ self.fc.weight", True),
    ("stores itself into another object", "other.child = self", False),
    ("returns itself", "return self", False),
    ("stores into its own attribute", "self.fc = x", False),
    ("stores an item", "self.cache[0] = x", False),
    ("hands a submodule to a function", "register(self.fc)", False),
    ("hands itself to a method", "x.attach(self)", False),
    ("uses setattr", "setattr(x, 'y', 1)", False),
    ("declares a global", "global G\nG = 1", False),
    ("hands a weight to a torch.nn function", "return torch.nn.utils.parametrize(self.fc)", False),
]


@pytest.mark.parametrize(("body", "kept"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_method_keeps_the_module_to_itself(body: str, kept: bool) -> None:
    source = "import torch\n\nclass Net(torch.nn.Module):\n    def m(self, x=None, other=None):\n"
    source += textwrap.indent(body, " " * 8) + "\n"
    tree = ast.parse(source)
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert _self_kept(method, NameFlow(tree)) is kept


def test_a_decorated_method_is_not_followed() -> None:
    source = "import torch\n\nclass Net(torch.nn.Module):\n    @staticmethod\n    def m():\n"
    source += "        return 1\n"
    tree = ast.parse(source)
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert _self_kept(method, NameFlow(tree)) is False

"""Which names stay inside their function (`analysis/private_modules.py`): table-driven."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.private_modules import private_names


def _torch_only(expr: ast.expr) -> str | None:
    """A resolver that knows `torch.*` and `nn.*` callees, as imports would resolve them."""
    text = ast.unparse(expr)
    return text if text.startswith(("torch.", "nn.")) else None


def _private(body: str) -> frozenset[str]:
    tree = ast.parse("def f(x, helper, store):\n" + textwrap.indent(textwrap.dedent(body), "    "))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    return private_names(function, _torch_only)


@pytest.mark.parametrize(
    "body",
    [
        "fc = nn.Linear(2, 2)\ny = fc(x)\n",
        "fc = nn.Linear(2, 2)\nopt = torch.optim.SGD(fc.parameters(), lr=0.1)\n",
        "fc = nn.Linear(2, 2)\nfor p in fc.parameters():\n    p.add_(1.0)\n",
        "fc = nn.Linear(2, 2)\nhelper(fc(x))\nstore.append(fc(x).sum())\n",
        "fc = nn.Linear(2, 2)\nfc.weight[0, 0] = 1.0\nfc.zero_grad()\nreturn fc\n",
        "fc = nn.Linear(2, 2)\ntorch.nn.utils.clip_grad_norm_(fc.parameters(), 1.0)\n",
    ],
    ids=["called", "torch-optimizer", "iterated", "outputs-handed-over", "own-methods", "clip"],
)
def test_a_module_used_only_here_is_private(body: str) -> None:
    assert "fc" in _private(body)


@pytest.mark.parametrize(
    "body",
    [
        "fc = nn.Linear(2, 2)\nhelper(fc)\n",
        "fc = nn.Linear(2, 2)\nhelper(fc.parameters())\n",
        "fc = nn.Linear(2, 2)\nhelper(w=fc.weight)\n",
        "fc = nn.Linear(2, 2)\nother = fc\n",
        "fc = nn.Linear(2, 2)\nstore['fc'] = fc\n",
        "fc = nn.Linear(2, 2)\nmodels = [fc]\n",
        "fc = nn.Linear(2, 2)\nparams = fc.parameters()\n",
        "fc = nn.Linear(2, 2)\nfc.weight = x\n",
        "fc = nn.Linear(2, 2)\ng = lambda: fc\n",
        "global fc\nfc = nn.Linear(2, 2)\n",
        "fc = nn.Linear(2, 2)\nyield fc\n",
    ],
    ids=[
        "argument",
        "parameters-argument",
        "weight-keyword",
        "alias",
        "stored",
        "container",
        "parameters-aliased",
        "weight-replaced",
        "lambda",
        "global",
        "yielded",
    ],
)
def test_a_module_that_leaves_its_function_is_not_private(body: str) -> None:
    assert "fc" not in _private(body)


@pytest.mark.parametrize(
    "freeze",
    [
        "fc.weight.requires_grad = False",
        "fc.requires_grad_(False)",
        "x.requires_grad_(requires_grad=False)",
        "w = nn.Parameter(x, requires_grad=False)",
        "x.requires_grad = flag",
    ],
)
def test_a_function_that_freezes_anything_has_no_private_names(freeze: str) -> None:
    assert _private(f"fc = nn.Linear(2, 2)\n{freeze}\ny = fc(x)\n") == frozenset()


def test_plainly_true_requires_grad_is_not_a_freeze() -> None:
    body = "fc = nn.Linear(2, 2)\nx.requires_grad_(True)\nx.requires_grad = True\ny = fc(x)\n"
    assert "fc" in _private(body)

"""Grad modes known from call sites down a call chain: a function whose every call the file
shows runs in the grad mode of its callers, whatever its parameters, and a mode switched
off at the top of the module reaches the end of a chain of any depth the passes allow."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.model import analyse_module, learn_caller_facts
from gradguard.analysis.values import Grad
from tests.analysis.test_value_facets import fact_at

# `main -> fit -> train_epoch`: none of them has a parameter that tells anything.
TRAINER = """
import torch
from torch import nn

{top}

class Trainer:
    def __init__(self, model):
        self.model = model

    def train_epoch(self):
        loss = self.model(torch.randn(2, 3)).sum()
        return loss

    def fit(self):
        for _ in range(2):
            self.train_epoch()


def main():
    {undo}
    Trainer(nn.Linear(3, 1)).fit()


main()
"""


def _grad_enabled(source: str, name: str) -> bool | str | None:
    """The grad mode every call of function `name` runs it under ("none": nothing learnt)."""
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    facts = learn_caller_facts(tree, source).get(id(node))
    return "none" if facts is None else facts.grad_enabled


@pytest.mark.parametrize("name", ["main", "fit", "train_epoch"])
def test_a_function_without_parameters_learns_its_callers_grad_mode(name: str) -> None:
    source = TRAINER.format(top="torch.set_grad_enabled(False)", undo="pass")
    assert _grad_enabled(source, name) is False


@pytest.mark.parametrize("name", ["fit", "train_epoch"])
def test_grad_mode_switched_back_on_in_main_is_not_off_down_the_chain(name: str) -> None:
    source = TRAINER.format(
        top="torch.set_grad_enabled(False)", undo="torch.set_grad_enabled(True)"
    )
    assert _grad_enabled(source, name) is not False


def test_recording_on_everywhere_teaches_nothing() -> None:
    source = TRAINER.format(top="", undo="pass")
    assert _grad_enabled(source, "train_epoch") == "none"


def test_a_value_computed_at_the_end_of_the_chain_has_no_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = """
    torch.set_grad_enabled(False)

    def step():
        loss = model(x).sum()  # <- loss
        return loss

    def epoch():
        step()

    def fit():
        epoch()

    def main():
        fit()

    main()
    """
    assert fact_at(snippet, monkeypatch).grad is Grad.UNTRACKED


DEEP = """
import torch
from torch import nn
net = nn.Linear(3, 1)

def f0(model, x):
    model(x).sum().backward()

{links}

{call}
"""


def _deep_chain(depth: int, call: str) -> str:
    """`f{depth} -> ... -> f1 -> f0`, each handing its model on; `call` calls the head."""
    links = "\n".join(f"def f{i}(model, x):\n    f{i - 1}(model, x)\n" for i in range(1, depth + 1))
    return DEEP.format(links=links, call=textwrap.dedent(call).format(head=f"f{depth}"))


def test_a_grad_mode_reaches_the_end_of_a_deep_chain() -> None:
    source = _deep_chain(5, "with torch.no_grad():\n    {head}(net, torch.randn(2, 3))")
    assert _grad_enabled(source, "f0") is False


def test_a_mode_decided_by_a_variable_stays_unknown_down_the_chain() -> None:
    call = (
        'for phase in ("train", "val"):\n'
        '    with torch.set_grad_enabled(phase == "train"):\n'
        "        {head}(net, torch.randn(2, 3))"
    )
    source = _deep_chain(5, call)
    assert _grad_enabled(source, "f0") is not False


def test_a_function_never_called_learns_nothing() -> None:
    source = "import torch\ntorch.set_grad_enabled(False)\n\ndef main():\n    pass\n"
    assert _grad_enabled(source, "main") == "none"
    analyse_module(ast.parse(source), source)  # and the analysis runs


def test_a_call_that_switches_recording_back_on_leaves_the_mode_unknown() -> None:
    source = (
        "import torch\nfrom torch import nn\ntorch.set_grad_enabled(False)\n\n"
        "def main():\n    torch.set_grad_enabled(True)\n\n"
        "def tune():\n    nn.Linear(2, 1)(torch.randn(1, 2)).sum().backward()\n\n"
        "main()\ntune()\n"
    )
    assert _grad_enabled(source, "main") is False
    assert _grad_enabled(source, "tune") is None

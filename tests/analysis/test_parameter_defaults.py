"""A parameter a call leaves out holds its default (`interpreter.defaults`): Python evaluates
the default once, when the `def` runs, so a torch.nn class called with literal arguments
(`loss_func=nn.CrossEntropyLoss()`) is a module of that class for every call leaving it out.
The parameter's value is still the join over every call of the file (`call_sites`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import LossInput
from gradguard.analysis.interpreter.statements import FunctionInterpreter
from gradguard.analysis.model import analyse_module
from gradguard.analysis.values import Grad, Value
from tests.analysis.test_value_facets import PRELUDE, fact_at

TRAINER = """
{prelude}
class Trainer:
    def __init__(self, net, loss_func={default}, lr=0.1):
        self.net = net
        loss = loss_func  # <- loss
        self.loss_func = loss

trainer = {calls}
"""


def _qualified_loss(
    default: str, calls: str, monkeypatch: pytest.MonkeyPatch, *, prelude: str = ""
) -> str | None:
    snippet = TRAINER.format(prelude=prelude, default=default, calls=calls)
    value = fact_at(snippet, monkeypatch)
    return value.module.qualified if value.module is not None else None


@pytest.mark.parametrize(
    ("default", "expected"),
    [
        ("nn.CrossEntropyLoss()", "torch.nn.CrossEntropyLoss"),
        ("nn.CrossEntropyLoss(reduction='sum', label_smoothing=0.1)", "torch.nn.CrossEntropyLoss"),
        ("torch.nn.NLLLoss(ignore_index=-100)", "torch.nn.NLLLoss"),
        ("nn.Softmax(dim=1)", "torch.nn.Softmax"),
    ],
)
def test_a_left_out_constructor_default_is_that_module(
    default: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _qualified_loss(default, "Trainer(model)", monkeypatch) == expected


def test_every_call_leaving_it_out_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = "Trainer(model)\nother = Trainer(model, lr=0.5)"
    assert _qualified_loss("nn.CrossEntropyLoss()", calls, monkeypatch) == (
        "torch.nn.CrossEntropyLoss"
    )


@pytest.mark.parametrize(
    ("default", "calls"),
    [
        # A call passing another loss: the join over the calls knows no class.
        ("nn.CrossEntropyLoss()", "Trainer(model)\nother = Trainer(model, nn.MSELoss())"),
        ("nn.CrossEntropyLoss()", "Trainer(model, loss_func=make_loss())"),
        # Arguments that are not literals: what the default is depends on them.
        ("nn.CrossEntropyLoss(weight=torch.ones(2))", "Trainer(model)"),
        ("nn.CrossEntropyLoss(*ARGS)", "Trainer(model)"),
        # Not torch's constructors: names and the file's own functions.
        ("LOSS", "Trainer(model)"),
        ("make_loss()", "Trainer(model)"),
        ("F.cross_entropy", "Trainer(model)"),
    ],
)
def test_unknown_defaults_and_other_arguments_say_nothing(
    default: str, calls: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prelude = "ARGS = ()\nLOSS = nn.CrossEntropyLoss()\ndef make_loss():\n    return nn.NLLLoss()\n"
    assert _qualified_loss(default, calls, monkeypatch, prelude=prelude) is None


def test_a_function_never_called_knows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
    def train(net, crit=nn.CrossEntropyLoss()):
        loss = crit  # <- loss
        return loss(net, net)
    """
    assert fact_at(snippet, monkeypatch).module is None


def _summary_values(snippet: str, monkeypatch: pytest.MonkeyPatch) -> list[Value]:
    """What the function's own analysis (not a run for one call, `context_runs`) binds at
    the line marked `# <- loss`."""
    source = PRELUDE + textwrap.dedent(snippet)
    (line,) = [n for n, text in enumerate(source.splitlines(), 1) if "# <- loss" in text]
    seen: list[Value] = []
    run_stmt = FunctionInterpreter.run_stmt

    def recording(self: FunctionInterpreter, stmt: ast.stmt) -> None:
        run_stmt(self, stmt)
        if stmt.lineno == line and self.context is None and self.env is not None:
            seen.append(self.env["loss"])

    monkeypatch.setattr(FunctionInterpreter, "run_stmt", recording)
    analyse_module(ast.parse(source), source)
    assert seen
    return seen


@pytest.mark.parametrize(
    "calls",
    [
        "hooks = [train]\nhooks[0](model)",  # passed on: callers the file does not show
        "train(model)\ntrain(model, crit=nn.NLLLoss())",
    ],
)
def test_unseen_or_other_callers_leave_the_summary_unknown(
    calls: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet = "def train(net, crit=nn.CrossEntropyLoss()):\n    loss = crit  # <- loss\n"
    snippet += "    return loss(net, net)\n" + calls + "\n"
    values = _summary_values(snippet, monkeypatch)
    assert all(v.module is None or v.module.qualified is None for v in values)


def test_the_summary_of_a_function_every_call_leaves_it_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = "def train(net, crit=nn.CrossEntropyLoss()):\n    loss = crit  # <- loss\n"
    snippet += "    return loss(net, net)\ntrain(model)\ntrain(x)\n"
    last = _summary_values(snippet, monkeypatch)[-1]
    assert last.module is not None
    assert last.module.qualified == "torch.nn.CrossEntropyLoss"


def test_a_shadowed_torch_name_is_not_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = """
    from torch.nn import CrossEntropyLoss
    class CrossEntropyLoss:
        pass
    def train(net, crit=CrossEntropyLoss()):
        loss = crit  # <- loss
        return loss(net, net)
    train(model)
    """
    assert fact_at(snippet, monkeypatch).module is None


def test_an_imported_class_name_resolves_where_the_def_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = """
    from torch.nn import CrossEntropyLoss
    def train(net, crit=CrossEntropyLoss()):
        loss = crit  # <- loss
        return loss(net, net)
    train(model)
    """
    value = fact_at(snippet, monkeypatch)
    assert value.module is not None
    assert value.module.qualified == "torch.nn.CrossEntropyLoss"


HELPER = """
import torch
import torch.nn.functional as F
from torch import nn
def loss_of(out, target, crit={default}):
    return crit(out, target)
LOSSES = [loss_of]
out = F.softmax(torch.randn(4, 3, requires_grad=True), dim=1)
loss = LOSSES[0](out, torch.tensor([0, 1, 2, 0]){passed})
"""


def _losses_in_context(default: str, passed: str) -> list[str]:
    source = textwrap.dedent(HELPER).format(default=default, passed=passed)
    events = analyse_module(ast.parse(source), source).events.of(LossInput)
    return [event.loss_function for event in events if event.context is not None]


def test_a_run_for_one_call_binds_a_constructor_default() -> None:
    # `loss_of` is passed on (not every call is seen); the run for the call seen binds it.
    assert _losses_in_context("nn.CrossEntropyLoss()", "") == ["cross_entropy"]


@pytest.mark.parametrize(
    ("default", "passed"),
    [
        ("nn.CrossEntropyLoss()", ", nn.MSELoss()"),  # the call passes another loss
        ("LOSS", ""),  # a name: whatever it held when the `def` ran
    ],
)
def test_a_run_for_one_call_keeps_what_it_passes_or_unknown(default: str, passed: str) -> None:
    assert _losses_in_context(default, passed) == []


# A tuple of literals (`sizes=(1, 2)`) is immutable: every call leaving it out iterates over
# the same numbers, so pooling a tensor without history by each keeps it without history.
POOLS = """
def pooled(img, sizes={default}):
    total = 0.0
    for k in sizes:
        part = F.avg_pool2d(img, k)  # <- part
        total = total + part.mean()
    return total
base = torch.rand(1, 3, 8, 8)
out = pooled(base{passed})
"""


@pytest.mark.parametrize("default", ["(1, 2)", "(2,)", "((2, 2), (4, 4))"])
def test_a_left_out_tuple_of_literals_holds_those_numbers(
    default: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = fact_at(POOLS.format(default=default, passed=""), monkeypatch)
    assert value.grad is Grad.UNTRACKED


@pytest.mark.parametrize(
    ("default", "passed"),
    [
        # A list may have been changed by an earlier call (`sizes.append(w)`).
        ("[1, 2]", ""),
        # A name, or a tuple holding one: whatever it held when the `def` ran.
        ("SIZES", ""),
        ("(1, WIDTH)", ""),
        ("(1, torch.ones(1, requires_grad=True))", ""),
        # The call passes its own sizes, whose elements are not known.
        ("(1, 2)", ", sizes=json.loads(TEXT)"),
    ],
)
def test_a_tuple_with_other_elements_or_passed_over_says_nothing(
    default: str, passed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prelude = "import json\nSIZES = (1, 2)\nWIDTH = 2\nTEXT = input()\n"
    snippet = prelude + POOLS.format(default=default, passed=passed)
    assert fact_at(snippet, monkeypatch).grad is Grad.UNKNOWN

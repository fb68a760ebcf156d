"""A function whose own backward freed, on every way out, the graph of what it was given for
a parameter (`FunctionSummary.frees_parameters`), and that argument's graph freed at the
caller (`ArgumentFreedByCall`), so a later backward there through the same tensor runs
through a freed graph."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import ArgumentFreedByCall
from gradguard.analysis.model import ModuleAnalysis, analyse_module

SOURCE = """
import torch
from torch import nn

G = nn.Linear(4, 4)
D = nn.Linear(4, 1)

def critic_step(real, fake):
{body}

def caller(z):
    fake = G(z)
{call}
    D(fake).mean().backward()
"""


def _analysis(body: str, call: str = "    critic_step(z, fake)") -> ModuleAnalysis:
    source = SOURCE.format(body=textwrap.indent(textwrap.dedent(body), "    "), call=call)
    return analyse_module(ast.parse(source), source)


def _second(analysis: ModuleAnalysis) -> frozenset[object]:
    """The graph nodes the caller's own backward finds freed."""
    second = next(c for c in analysis.backward_calls if c.function and c.function.name == "caller")
    return frozenset(second.through_freed)


def test_a_backward_through_a_parameter_frees_the_callers_argument() -> None:
    analysis = _analysis("loss = D(real).mean() - D(fake).mean()\nloss.backward()")
    (event,) = analysis.events.of(ArgumentFreedByCall)
    assert ast.unparse(event.node) == "critic_step(z, fake)"
    assert event.parameter == "fake"
    assert [ast.unparse(c) for c in event.backwards] == ["loss.backward()"]
    assert event.freed & _second(analysis)


def test_a_parameter_rebound_from_itself_still_frees_the_argument() -> None:
    analysis = _analysis("fake = fake * 2\nD(fake).sum().backward()")
    (event,) = analysis.events.of(ArgumentFreedByCall)
    assert event.parameter == "fake"


@pytest.mark.parametrize(
    "body",
    [
        # The backward does not run through the parameter: detached, or another tensor.
        "D(fake.detach()).mean().backward()",
        "D(real).mean().backward()",
        # The graph is kept, or freed on one way out only.
        "D(fake).mean().backward(retain_graph=True)",
        "if real.sum() > 0:\n    D(fake).mean().backward()",
        "if real.sum() > 0:\n    return\nD(fake).mean().backward()",
        # `torch.autograd.grad` keeping the graph.
        "torch.autograd.grad(D(fake).mean(), [real], retain_graph=True)",
    ],
)
def test_look_alikes_free_nothing_of_the_argument(body: str) -> None:
    analysis = _analysis(body)
    assert analysis.events.of(ArgumentFreedByCall) == []
    assert not _second(analysis)


def test_an_argument_without_history_has_no_graph_to_free() -> None:
    analysis = _analysis("D(fake).mean().backward()", call="    critic_step(z, fake.detach())")
    assert analysis.events.of(ArgumentFreedByCall) == []
    assert not _second(analysis)


def test_a_call_with_recording_off_frees_nothing() -> None:
    analysis = _analysis(
        "D(fake).mean().backward()",
        call="    with torch.no_grad():\n        critic_step(z, fake)",
    )
    assert analysis.events.of(ArgumentFreedByCall) == []

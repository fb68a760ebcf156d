"""A function whose own backward freed, on every way out, graph nodes its result certainly
runs through (`FunctionSummary.frees_result`), and the call's graph node freed at the caller
(`FreedByCall`), so a later backward there runs through a freed graph."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import FreedByCall
from gradguard.analysis.model import analyse_module

SOURCE = """
import torch
from torch import nn

G = nn.Linear(4, 4)
D = nn.Linear(4, 1)

def step(real):
{body}

def caller(real):
    fake = step(real)
{use}
"""


def _source(body: str, use: str = "    pass") -> str:
    return SOURCE.format(body=textwrap.indent(textwrap.dedent(body), "    "), use=use)


def _frees(body: str) -> tuple[str, ...]:
    """The backward calls of `step` that the caller's `step(real)` says freed its result."""
    source = _source(body)
    events = analyse_module(ast.parse(source), source).events.of(FreedByCall)
    return tuple(ast.unparse(c) for event in events for c in event.backwards)


def test_a_backward_through_the_returned_output_frees_it() -> None:
    assert _frees("fake = G(real)\nD(fake).mean().backward()\nreturn fake") == (
        "D(fake).mean().backward()",
    )


def test_each_part_of_a_returned_pair_runs_through_a_freed_node() -> None:
    body = "fake = G(real)\nscore = D(fake)\nscore.mean().backward()\nreturn fake, score"
    assert _frees(body) == ("score.mean().backward()",)


@pytest.mark.parametrize(
    "body",
    [
        # The backward does not run through the output: detached, or another graph.
        "fake = G(real)\nD(fake.detach()).mean().backward()\nreturn fake",
        "fake = G(real)\nD(real).mean().backward()\nreturn fake",
        # The graph is kept, or freed on one path only.
        "fake = G(real)\nD(fake).mean().backward(retain_graph=True)\nreturn fake",
        "fake = G(real)\nif real.sum() > 0:\n    D(fake).mean().backward()\nreturn fake",
        "fake = G(real)\nif real.sum() > 0:\n    return fake\n"
        "D(fake).mean().backward()\nreturn fake",
        # What it returns is computed after the backward.
        "fake = G(real)\nD(fake).mean().backward()\nreturn G(real)",
        # One part of a pair runs through no freed node: the call's one node stands for both.
        "fake = G(real)\nD(fake).mean().backward()\nreturn fake, G(real)",
    ],
)
def test_look_alikes_free_nothing_the_result_needs(body: str) -> None:
    assert _frees(body) == ()


def _freed_by_calls(use: str) -> list[FreedByCall]:
    source = _source("fake = G(real)\nD(fake).mean().backward()\nreturn fake", use)
    return analyse_module(ast.parse(source), source).events.of(FreedByCall)


def test_the_call_node_is_freed_for_the_callers_backward() -> None:
    source = _source(
        "fake = G(real)\nD(fake).mean().backward()\nreturn fake",
        "    D(fake).mean().backward()",
    )
    analysis = analyse_module(ast.parse(source), source)
    (event,) = analysis.events.of(FreedByCall)
    assert ast.unparse(event.node) == "step(real)"
    second = next(c for c in analysis.backward_calls if c.function and c.function.name == "caller")
    assert event.freed in second.through_freed
    assert [ast.unparse(c) for c in event.backwards] == ["D(fake).mean().backward()"]


def test_a_result_detached_at_the_caller_runs_through_nothing_freed() -> None:
    source = _source(
        "fake = G(real)\nD(fake).mean().backward()\nreturn fake",
        "    D(fake.detach()).mean().backward()",
    )
    analysis = analyse_module(ast.parse(source), source)
    second = next(c for c in analysis.backward_calls if c.function and c.function.name == "caller")
    assert not second.through_freed


HELPER = """
def update(fake):
{update}
"""


@pytest.mark.parametrize(
    ("update", "through"),
    [
        ("D(fake).mean().backward()", True),
        ("loss = D(fake).mean()\nloss.backward()\nreturn loss.item()", True),
        # Its backward does not run through the argument, or runs on a detached copy.
        ("D(torch.randn(2, 4)).mean().backward()", False),
        ("D(fake.detach()).mean().backward()", False),
    ],
)
def test_a_helper_backpropagating_through_a_freed_argument(update: str, through: bool) -> None:
    source = _source(
        "fake = G(real)\nD(fake).mean().backward()\nreturn fake", "    update(fake)"
    ) + HELPER.format(update=textwrap.indent(textwrap.dedent(update), "    "))
    analysis = analyse_module(ast.parse(source), source)
    seen = [c for c in analysis.backward_across_methods if c.through_freed]
    assert bool(seen) is through
    if through:
        assert seen[0].function is not None and seen[0].function.name == "update"


def test_a_helper_handed_a_fresh_argument_runs_through_nothing_freed() -> None:
    source = _source(
        "fake = G(real)\nD(fake).mean().backward()\nreturn fake", "    update(G(real))"
    ) + HELPER.format(update="    D(fake).mean().backward()")
    analysis = analyse_module(ast.parse(source), source)
    assert not [c for c in analysis.backward_across_methods if c.through_freed]


def test_the_trainers_backward_of_a_training_step_frees_nothing_for_a_direct_caller() -> None:
    source = textwrap.dedent(
        """
        import torch
        from lightning.pytorch import LightningModule
        from torch import nn

        class Tiny(LightningModule):
            def __init__(self):
                super().__init__()
                self.linear = nn.Linear(1, 4)

            def training_step(self, batch, batch_idx):
                return self.linear(batch).pow(2).sum()

        def loop(batches):
            model = Tiny()
            for i, batch in enumerate(batches):
                model.training_step(batch, i).backward()
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    assert not analysis.events.of(FreedByCall)
    assert not [c for c in analysis.backward_calls if c.through_freed]

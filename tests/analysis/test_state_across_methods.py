"""Facts of method summaries about the graph `self` state had when the method was called:
which backward calls run through it (`FunctionSummary.state_backwards`) and which state's
graph every call frees (`frees_state`); and, from a method calling two such methods, the
backward calls seen to run through a graph the first one freed
(`ModuleAnalysis.backward_across_methods`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.interpreter.module import ModuleInterpreter
from gradguard.analysis.model import ModuleAnalysis, analyse_module

CLASS = """
import torch
from torch import nn

class Gan:
    def __init__(self):
        self.netG = nn.Linear(4, 4)
        self.netD = nn.Linear(4, 1)

    def forward(self):
        self.fake = self.netG(torch.randn(2, 4))

    def step_d(self):
        {step_d}

    def step_g(self):
        self.netD(self.fake).mean().backward()

    def optimize(self):
        self.forward()
        self.step_d()
        {between}
        self.step_g()
"""


def _source(step_d: str, between: str = "pass") -> str:
    return textwrap.dedent(CLASS).format(step_d=step_d, between=between)


@pytest.mark.parametrize(
    ("step_d", "frees"),
    [
        ("self.netD(self.fake).mean().backward()", True),
        ("self.netD(self.fake * 2).sum().backward()", True),
        # Look-alikes: detached, graph kept, or only on one path.
        ("self.netD(self.fake.detach()).mean().backward()", False),
        ("self.netD(self.fake).mean().backward(retain_graph=True)", False),
        ("if torch.rand(()) > 0.5:\n            self.netD(self.fake).mean().backward()", False),
    ],
)
def test_method_frees_the_state_graph(step_d: str, frees: bool) -> None:
    source = _source(step_d)
    tree = ast.parse(source)
    interpreter = ModuleInterpreter(tree, ModuleAnalysis(tree), source)
    interpreter.run()
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "step_d")
    assert ("fake" in interpreter.summary_of(node).frees_state) is frees


@pytest.mark.parametrize(
    ("step_d", "between", "through_freed"),
    [
        ("self.netD(self.fake).mean().backward()", "pass", True),
        # Look-alikes: detached in the first step, or generated again in between.
        ("self.netD(self.fake.detach()).mean().backward()", "pass", False),
        ("self.netD(self.fake).mean().backward()", "self.forward()", False),
        (
            "self.netD(self.fake).mean().backward()",
            "self.fake = self.netG(torch.randn(2, 4))",
            False,
        ),
    ],
)
def test_second_method_runs_through_freed_state(
    step_d: str, between: str, through_freed: bool
) -> None:
    source = _source(step_d, between)
    analysis = analyse_module(ast.parse(source), source)
    seen = [e for e in analysis.backward_across_methods if e.function is not None]
    second = [e for e in seen if e.function.name == "step_g"]  # type: ignore[union-attr]
    assert any(e.through_freed for e in second) is through_freed


# The critic is made trainable and frozen again between the steps by a helper, and the
# generator's input is unknown, so what a backward call inside `step_g` sees of its root's
# grad is not known: a backward that returns still ran from a root requiring grad, and the
# one in `step_d` freed the generator's graph that the one in `step_g` certainly reaches.
TOGGLED = """
import torch
from torch import nn

def make_critic():
    return nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

class Gan:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
        self.netD = make_critic()

    @staticmethod
    def trainable(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def set_input(self, batch):
        self.real = batch["x"]

    def forward(self):
        self.fake = self.netG(self.real)

    def step_d(self):
        loss = {loss_d}
        loss.backward({keywords})

    def step_g(self):
        self.netD(self.fake).mean().backward()

    def optimize(self, batch):
        self.set_input(batch)
        self.forward()
        self.trainable(self.netD, True)
        self.step_d()
        self.trainable(self.netD, False)
        self.step_g()
"""


@pytest.mark.parametrize(
    ("loss_d", "keywords", "through_freed"),
    [
        ("self.netD(self.fake).mean()", "", True),
        ("0.5 * (self.netD(self.fake).mean() + self.netD(torch.ones(2, 4)).mean())", "", True),
        # Look-alikes: the generator's output detached, the graph kept, or not reached.
        ("self.netD(self.fake.detach()).mean()", "", False),
        ("self.netD(self.fake).mean()", "retain_graph=True", False),
        ("self.netD(torch.ones(2, 4)).mean()", "", False),
    ],
)
def test_backward_of_a_root_whose_grad_is_unknown_frees_what_it_reaches(
    loss_d: str, keywords: str, through_freed: bool
) -> None:
    source = textwrap.dedent(TOGGLED).format(loss_d=loss_d, keywords=keywords)
    analysis = analyse_module(ast.parse(source), source)
    second = [
        e
        for e in analysis.backward_across_methods
        if e.function is not None and e.function.name == "step_g"
    ]
    assert any(e.through_freed for e in second) is through_freed

"""Callees before callers (`interpreter.call_order`), and what it buys: facts of a function
deep in a call chain reach the loop that calls it."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradguard.analysis.events import OptimizerCall
from gradguard.analysis.interpreter.call_order import callees_first, names_called
from gradguard.analysis.model import FunctionNode, analyse_module


def _functions(source: str) -> list[FunctionNode]:
    return [
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def test_callees_come_before_their_callers() -> None:
    source = textwrap.dedent(
        """
        def main():
            Trainer().fit()
        class Trainer:
            def fit(self):
                for _ in range(3):
                    self.run_epoch()
            def run_epoch(self):
                self.run_batch()
            def run_batch(self):
                pass
        """
    )
    order = [f.name for f in callees_first(_functions(source), None)]
    assert order == ["run_batch", "run_epoch", "fit", "main"]


def test_a_header_calls_nothing() -> None:
    """`def forward(` names `forward` followed by `(`: read as a call, every `forward` of a
    model file would call every other, and a block's `forward` could come after the model's
    that runs it through an attribute. Only the body is read: the classes' source order."""
    source = textwrap.dedent(
        """
        class Block(nn.Module):
            def forward(self, x):
                return self.fc(x)
        class Model(nn.Module):
            def forward(self, x):
                return self.block(x)
        """
    )
    order = [(f.name, f.lineno) for f in callees_first(_functions(source), source)]
    assert order == [("forward", 3), ("forward", 6)]


def test_a_body_on_the_header_line_still_calls() -> None:
    source = "def main(): fit()\ndef fit(): pass\n"
    order = [f.name for f in callees_first(_functions(source), source)]
    assert order == ["fit", "main"]


def test_the_text_gives_the_same_order() -> None:
    source = textwrap.dedent(
        """
        def main():
            fit()
        def fit():
            for _ in range(3):
                run_batch()
        def run_batch():
            pass
        """
    )
    order = [f.name for f in callees_first(_functions(source), source)]
    assert order == ["run_batch", "fit", "main"]


def test_a_cycle_is_broken_and_every_function_is_listed_once() -> None:
    source = "def a():\n    b()\ndef b():\n    a()\ndef c():\n    pass\n"
    order = [f.name for f in callees_first(_functions(source), None)]
    assert sorted(order) == ["a", "b", "c"] and order.index("b") < order.index("a")


def test_a_step_four_calls_deep_is_seen_from_the_loop_that_calls_it() -> None:
    # main -> train -> run_epoch -> run_batch: deeper than nested summaries go.
    source = textwrap.dedent(
        """
        import torch
        def run_batch(model, optimizer, x):
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
        def run_epoch(model, optimizer, loader):
            for x in loader:
                run_batch(model, optimizer, x)
        def train(model, optimizer, loader, epochs):
            for _ in range(epochs):
                run_epoch(model, optimizer, loader)
        def main(loader):
            model = torch.nn.Linear(2, 1)
            train(model, torch.optim.SGD(model.parameters(), lr=0.1), loader, 3)
        main([])
        """
    )
    analysis = analyse_module(ast.parse(source), source)
    loop = next(n for n in ast.walk(analysis.tree) if isinstance(n, ast.For) and n.lineno == 8)
    assert any(loop in e.every_iteration for e in analysis.backward_in_calls)
    assert any(
        u.method == "step" and loop in u.every_iteration for u in analysis.events.of(OptimizerCall)
    )


# What a call looks like in the text, searched forwards (`names_called` searches backwards).
_FORWARD = re.compile(r"\b(\w+)\s*\(")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "f(x)",
        "a.b (c) + g\n(h( i ))",
        "((( f ( ( x",
        "print(x)\n    y = z[0](1)\n\tné\u00a0(é)",
        "_9 ( 9a(  b_ (\n",
    ],
)
def test_names_called_finds_what_the_forward_search_finds(text: str) -> None:
    assert names_called(text) == tuple(_FORWARD.findall(text))


@given(st.text(alphabet="ab_9é( \t\n\u00a0.)", max_size=40))
def test_names_called_agrees_with_the_forward_search_on_any_text(text: str) -> None:
    assert names_called(text) == tuple(_FORWARD.findall(text))

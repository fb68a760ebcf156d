"""`interpreter.contextual`: when a call's arguments are worth a run of the function, and
what of that run's result refines the summary's."""

from __future__ import annotations

import ast

import pytest

from gradguard.analysis.interpreter.contextual import (
    refined,
    reports_in_context,
    wants_context,
    with_inference,
)
from gradguard.analysis.values import Grad, Kind, Loss, LossKind, ModuleRef, Value
from tests.analysis.test_value_facets import fact_at

T, U, N = Grad.TRACKED, Grad.UNTRACKED, Grad.UNKNOWN
TENSOR = Value(kind=Kind.TENSOR)
CUT = Value(U, Kind.TENSOR, Loss(LossKind.DETACH, ast.Constant(0), ".detach()"))

INERT = Loss(LossKind.NO_CREATE_GRAPH, ast.Constant(0), "torch.autograd.grad(...)")
FAST = Value(kind=Kind.SEQUENCE, items=Value(T, Kind.TENSOR, inert_terms=frozenset({INERT})))

PLAIN = ast.parse("def f(a, b):\n    return a * b\n").body[0]
LOSSY = ast.parse("def f(a, b):\n    return F.nll_loss(a, b)\n").body[0]


@pytest.mark.parametrize(
    ("function", "result", "passed", "wanted"),
    [
        (PLAIN, TENSOR, {"a": CUT}, True),  # unknown history, a known tensor given
        (PLAIN, Value(T, Kind.TENSOR), {"a": CUT}, False),  # the summary already knows
        (PLAIN, TENSOR, {"a": Value(kind=Kind.SCALAR)}, False),  # a number tells nothing
        (PLAIN, TENSOR, {}, False),
        (LOSSY, Value(T, Kind.TENSOR), {"a": CUT}, True),  # what the loss is given is reported
        (PLAIN, Value(kind=Kind.SEQUENCE, elements=(TENSOR,)), {"a": CUT}, True),
        (PLAIN, TENSOR, {"a": Value(kind=Kind.MODULE, module=ModuleRef())}, True),
        # Fast weights holding a gradient taken without create_graph: the result may too.
        (PLAIN, Value(T, Kind.TENSOR), {"a": FAST, "b": CUT}, True),
        (
            PLAIN,
            Value(T, Kind.TENSOR, inert_terms=frozenset({INERT})),
            {"a": FAST, "b": CUT},
            False,
        ),
    ],
)
def test_when_a_run_in_context_is_worth_it(
    function: ast.FunctionDef, result: Value, passed: dict[str, Value], wanted: bool
) -> None:
    assert isinstance(function, ast.FunctionDef)
    assert wants_context(function, result, passed) is wanted


def test_a_function_calling_a_loss_by_name_reports_in_context() -> None:
    assert isinstance(LOSSY, ast.FunctionDef) and isinstance(PLAIN, ast.FunctionDef)
    assert reports_in_context(LOSSY)
    assert not reports_in_context(PLAIN)


def test_only_unknown_history_is_refined_part_by_part() -> None:
    result = Value(kind=Kind.SEQUENCE, elements=(TENSOR, Value(T, Kind.TENSOR)))
    found = Value(kind=Kind.SEQUENCE, elements=(CUT, Value(U, Kind.TENSOR)))
    parts = refined(result, found).elements
    assert parts is not None
    assert parts[0].grad is U and parts[0].loss is CUT.loss  # unknown: taken from the run
    assert parts[1].grad is T  # known: kept
    # A leaf made by requires_grad_() keeps its leaf fact with its grad (all autograd facts).
    leaf = refined(TENSOR, Value(T, Kind.TENSOR, leaf=True))
    assert leaf.grad is T and leaf.leaf


def test_a_run_that_disagrees_on_the_shape_refines_nothing_inside() -> None:
    result = Value(kind=Kind.SEQUENCE, elements=(TENSOR,))
    found = Value(kind=Kind.SEQUENCE, elements=(CUT, CUT))
    assert refined(result, found).elements == result.elements


def test_inference_tensors_are_what_the_run_in_that_mode_allocated() -> None:
    allocated = Value(U, Kind.TENSOR, inference=True)
    assert with_inference(TENSOR, allocated).inference
    assert not with_inference(TENSOR, CUT).inference


_STEP_CALLED_IN_TWO_MODES = """
class Runner:
    def __init__(self, net):
        self.net = net

    def step(self, batch):
        inputs, labels = batch
        logits = self.net(inputs)
        return {"loss": F.cross_entropy(logits, labels), "out": logits}

    def train(self, loader):
        for batch in loader:
            self.step(batch)["loss"].backward()

    def evaluate(self, loader):
        for batch in loader:
            out = self.step(batch)["out"]  # <- out

    @torch.no_grad()
    def evaluate_quietly(self, loader):
        for batch in loader:
            out = self.step(batch)["out"]
from data import batches
runner = Runner(model)
runner.train(batches)
runner.evaluate(batches)
runner.evaluate_quietly(batches)
"""


def test_a_function_called_in_two_grad_modes_gives_each_call_its_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`step`'s callers disagree on the grad mode, so its summary knows none: a call made
    with recording on takes the history of what it returns (a dict of outputs, from batches
    nothing is known of) from a run in that mode."""
    out = fact_at(_STEP_CALLED_IN_TWO_MODES, monkeypatch)
    assert out.grad is Grad.TRACKED

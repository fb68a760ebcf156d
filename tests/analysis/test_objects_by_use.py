"""Objects of unknown value recognised by how they are used: optimizers named like one whose
`step()`/`zero_grad()` is called (see `CallEvaluator._optimizer_by_use`)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import Accumulation, OptimizerCall
from gradguard.analysis.model import analyse_module
from gradguard.analysis.names import names_an_optimizer


@pytest.mark.parametrize(
    "name",
    ["optimizer", "optim", "opt", "opt_g", "d_optimizer", "optimizerG", "optimizer2", "optimiser"],
)
def test_names_of_optimizers(name: str) -> None:
    assert names_an_optimizer(name)


@pytest.mark.parametrize(
    "name", ["options", "optimal", "opt_level", "scheduler", "lr_scheduler", "adopt", "option"]
)
def test_names_that_are_not_optimizers(name: str) -> None:
    assert not names_an_optimizer(name)


def _optimizer_calls(body: str) -> list[str]:
    source = textwrap.dedent(body)
    calls = analyse_module(ast.parse(source), source).events.of(OptimizerCall)
    return [f"{ast.unparse(u.target)}.{u.method}" for u in calls]


def test_a_parameter_stepped_is_an_optimizer_from_then_on() -> None:
    assert _optimizer_calls(
        """
        def train(model, optimizer, loader):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
        """
    ) == ["optimizer.step", "optimizer.zero_grad"]


@pytest.mark.parametrize(
    "call",
    [
        "optimizer.step(loss)",  # takes a tensor: some wrapper, not Optimizer.step
        "optimizer.step(lr=0.1)",
        "scheduler.step()",  # not named like an optimizer
        "options.step()",
        "optimizer.update()",  # neither step nor zero_grad
    ],
)
def test_other_calls_say_nothing(call: str) -> None:
    assert (
        _optimizer_calls(
            f"""
        def train(model, optimizer, scheduler, options, loader):
            for x in loader:
                loss = model(x).sum()
                loss.backward()
                {call}
        """
        )
        == []
    )


def test_a_closure_is_what_optimizer_step_takes() -> None:
    assert _optimizer_calls(
        """
        def fit(model, optimizer, x):
            def closure():
                loss = model(x).sum()
                loss.backward()
                return loss
            optimizer.step(closure)
        """
    ) == ["optimizer.step"]


def test_a_known_value_is_not_reinterpreted() -> None:
    # `opt` holds a number here: its name does not make it an optimizer.
    assert (
        _optimizer_calls(
            """
        def f(values):
            opt = 3
            opt.step()
        """
        )
        == []
    )


def _accumulated(body: str) -> list[object]:
    source = textwrap.dedent(body)
    accumulated = analyse_module(ast.parse(source), source).events.of(Accumulation)
    return [u.added.grad.name for u in accumulated]


def test_a_method_only_tensors_have_shows_an_output_is_a_tensor() -> None:
    # `model.eval()`: a module, whose output has history but an unknown structure.
    assert _accumulated(
        """
        import torch
        def f(model, xs):
            model.eval()
            total = 0
            for x in xs:
                out = model(x)
                total += torch.nn.functional.relu(out.reshape(-1)).sum()
        """
    ) == ["TRACKED"]


def test_a_method_containers_also_have_says_nothing() -> None:
    assert _accumulated(
        """
        import torch
        def f(model, xs):
            model.eval()
            total = 0
            for x in xs:
                out = model(x)
                total += torch.nn.functional.relu(out.to("cpu")).sum()
        """
    ) == ["UNKNOWN"]


@pytest.mark.parametrize(
    ("listing", "known"),
    [
        ("optimizer = torch.optim.SGD(model.parameters(), lr=0.1)", True),
        ("named = model.named_parameters()", True),
        ("params = model.parameters(recurse=False)", True),
        ("signature = model.parameters", False),  # an attribute read, not the method
        ("chosen = model.parameters(0)", False),  # takes an argument: not Module.parameters
        ("pass", False),
    ],
)
def test_a_value_listing_its_parameters_is_a_module(listing: str, known: bool) -> None:
    # A module's output has history (the file freezes nothing): the total keeps it.
    assert _accumulated(
        f"""
        import torch
        def f(model, xs):
            {listing}
            total = 0
            for x in xs:
                total += torch.relu(model(x)).sum()
        """
    ) == (["TRACKED"] if known else ["UNKNOWN"])


@pytest.mark.parametrize(
    ("expression", "tensor"),
    [
        ("model(x) - y", True),
        ("model(x) / 2", True),
        ("model(x) ** 2", True),
        ("-model(x)", True),
        ("model(x) @ w", True),
        ("model(x) + y", False),  # `+` also concatenates lists and tuples
        ("model(x) * 2", False),  # `*` also repeats them
    ],
)
def test_an_operator_only_tensors_have_shows_an_output_is_a_tensor(
    expression: str, tensor: bool
) -> None:
    # The output of a module of unknown class has history but no known structure: only a
    # tensor's `.mean()` is recorded as an accumulation with history.
    found = _accumulated(
        f"""
        import torch
        def f(model, xs, y, w):
            model.eval()
            total = 0
            for x in xs:
                total += ({expression}).mean()
        """
    )
    assert (found == ["TRACKED"]) is tensor


def test_a_helper_given_two_optimizer_classes_holds_an_optimizer() -> None:
    """Two callers pass different torch.optim classes: the join is an optimizer of either
    class (named unlike one here, so that only the join can say so)."""
    assert _optimizer_calls(
        """
        import torch
        def run(model, solver, loader):
            for x in loader:
                model(x).sum().backward()
                solver.step()
        def main(model, loader):
            run(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
            run(model, torch.optim.AdamW(model.parameters()), loader)
        """
    ) == ["solver.step"]


def test_an_optimizer_joined_with_a_scheduler_is_not_an_optimizer() -> None:
    assert (
        _optimizer_calls(
            """
        import torch
        def run(model, solver, loader):
            for x in loader:
                model(x).sum().backward()
                solver.step()
        def main(model, loader, opt):
            run(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
            run(model, torch.optim.lr_scheduler.StepLR(opt, 3), loader)
        """
        )
        == []
    )

"""Inference tensors saved inside a helper whose callers run it under different grad modes.

A helper scoring token ids (`def logps(model, ids): return model(ids)...`) is often called
twice: once for a reference model under `torch.no_grad()`, once for the policy with
recording on. Its own analysis runs under the mode its callers share, which is unknown
here, so it reports nothing inside. The call made with recording on is run in context, in
that call's mode, with that call's arguments: when that run saves an inference tensor the
call hands it, the `InferenceSaved` event is recorded at the call (`through` the operation
inside), whatever the other callers pass.
"""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.events import InferenceSaved
from gradguard.analysis.model import analyse_module

PRELUDE = """
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(8, 4)

    def forward(self, ids):
        return self.embed(ids)


class Trainer:
    def __init__(self, policy, reference):
        self.policy = policy
        self.reference = reference

    def logps(self, model, tokens):
        return model(tokens).log_softmax(-1)

    def sample(self):
        with torch.inference_mode():
            return torch.randint(0, 8, (2, 3)) + 0
"""
# Each case adds `Trainer.step` (indented as a method) and a call of it.
CALL = "\nTrainer(Scorer(), Scorer()).step()\n"


def _saved(step: str) -> list[tuple[str, bool | None, bool]]:
    source = PRELUDE + textwrap.indent(textwrap.dedent(step), "    ") + CALL
    analysis = analyse_module(ast.parse(source), source)
    lines = source.splitlines()
    return [
        (
            lines[event.node.lineno - 1].strip(),  # type: ignore[attr-defined]
            event.grad_enabled,
            event.through is not None,
        )
        for event in analysis.events.of(InferenceSaved)
    ]


def test_the_call_with_recording_on_reports_what_its_run_saves() -> None:
    found = _saved(
        """
        def step(self):
            ids = self.sample()
            with torch.no_grad():
                ref = self.logps(self.reference, ids)
            return (self.logps(self.policy, ids) - ref).mean()
        """
    )
    assert found == [("return (self.logps(self.policy, ids) - ref).mean()", True, True)]


def test_calls_with_recording_off_report_nothing() -> None:
    found = _saved(
        """
        def step(self):
            ids = self.sample()
            with torch.no_grad():
                ref = self.logps(self.reference, ids)
            with torch.inference_mode():
                return self.logps(self.policy, ids) - ref
        """
    )
    assert not [f for f in found if f[1] is True]


def test_the_call_with_recording_on_passing_a_normal_tensor_reports_nothing() -> None:
    found = _saved(
        """
        def step(self):
            ids = self.sample()
            with torch.no_grad():
                ref = self.logps(self.reference, ids)
            return (self.logps(self.policy, ids.clone()) - ref).mean()
        """
    )
    assert not [f for f in found if f[1] is True]

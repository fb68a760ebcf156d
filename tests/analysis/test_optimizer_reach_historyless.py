"""GG608's reach stops at names that hold no history (`historyless_names`), and only when
the loss still trains another model: a loss cut from every model is a cut history."""

from __future__ import annotations

import ast
import textwrap

from gradguard.analysis.model import analyse_module
from gradguard.analysis.optimizer_reach import unreached_optimizers

PRELUDE = """
import copy
import torch
from torch import nn
online = nn.Linear(4, 2)
target = copy.deepcopy(online)
"""


def _unreached(snippet: str) -> list[tuple[str, str, tuple[str, ...]]]:
    source = PRELUDE + textwrap.dedent(snippet)
    analysis = analyse_module(ast.parse(source), source)
    return [(f.optimizer, f.module, f.trained) for f in unreached_optimizers(analysis)]


def test_a_no_grad_target_does_not_reach_the_network_it_was_computed_from() -> None:
    found = _unreached(
        """
        opt = torch.optim.SGD(target.parameters(), lr=0.1)
        for _ in range(3):
            x = torch.randn(8, 4)
            with torch.no_grad():
                goal = target(x).max(dim=1).values
            loss = (online(x).max(dim=1).values - goal).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )
    assert found == [("opt", "target", ("online",))]


def test_a_detached_target_does_not_either() -> None:
    found = _unreached(
        """
        opt = torch.optim.SGD(target.parameters(), lr=0.1)
        for _ in range(3):
            x = torch.randn(8, 4)
            goal = target(x).detach()
            loss = (online(x) - goal).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )
    assert found == [("opt", "target", ("online",))]


def test_the_network_the_loss_runs_with_grad_is_reached() -> None:
    assert not _unreached(
        """
        opt = torch.optim.SGD(target.parameters(), lr=0.1)
        for _ in range(3):
            x = torch.randn(8, 4)
            with torch.no_grad():
                goal = online(x)
            loss = (target(x) - goal).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )


def test_a_loss_cut_from_every_model_is_left_to_the_history_rules() -> None:
    assert not _unreached(
        """
        opt = torch.optim.SGD(target.parameters(), lr=0.1)
        offset = torch.zeros(1, requires_grad=True)
        for _ in range(3):
            x = torch.randn(8, 4)
            with torch.no_grad():
                scores = target(x)
            loss = (scores - 1).pow(2).mean() + offset.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )


def test_a_buffer_given_history_in_place_is_followed() -> None:
    assert not _unreached(
        """
        opt = torch.optim.SGD(target.parameters(), lr=0.1)
        for _ in range(3):
            x = torch.randn(8, 4)
            with torch.no_grad():
                total = torch.zeros(8, 2)
            total.add_(target(x))
            loss = (online(x) - total).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )

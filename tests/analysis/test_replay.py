"""Replaying the steps of a call-site pass (`gradguard.analysis.interpreter.replay`) gives
the findings a full pass gives: compared on every corpus script and bundled example whose
analysis takes a second pass, and on a small file where the pass changes the findings."""

from __future__ import annotations

import textwrap

import pytest

from gradguard.analysis import model
from gradguard.analysis.interpreter import replay
from gradguard.core.engine import check_source
from tests.test_corpus import corpus_files


def _findings(text: str, path: str) -> list[str]:
    return [repr(finding) for finding in check_source(text, path=path).findings]


def _replaying(monkeypatch: pytest.MonkeyPatch) -> list[replay.Journal]:
    """Every journal made from now on (the first pass's and each call-site pass's)."""
    made: list[replay.Journal] = []
    init = replay.Journal.__init__

    def keep(self: replay.Journal, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(replay.Journal, "__init__", keep)
    return made


def test_replayed_passes_find_what_full_passes_find(monkeypatch: pytest.MonkeyPatch) -> None:
    journals = _replaying(monkeypatch)
    compared = replayed = 0
    for path in corpus_files():
        text = path.read_text(encoding="utf-8")
        journals.clear()
        with_replay = _findings(text, str(path))
        steps = sum(journal.replayed for journal in journals)
        if len(journals) < 2:
            continue  # one pass: nothing was replayed
        monkeypatch.setattr(model, "REPLAY_STEPS", False)
        try:
            assert with_replay == _findings(text, str(path)), path
        finally:
            monkeypatch.setattr(model, "REPLAY_STEPS", True)
        compared += 1
        replayed += steps
    # The corpus exercises the call-site passes, and most of their steps are replayed.
    assert compared >= 20
    assert replayed > 0


# `show` learns from its only call that `history` is a list of losses with history: the
# second pass finds it plotted (GG502), which a first pass alone (parameter unknown) does not.
LEARNS = textwrap.dedent(
    """
    import torch
    import matplotlib.pyplot as plt
    from torch import nn

    def show(history):
        plt.plot(history)

    def unrelated(values):
        return sum(values)

    net = nn.Linear(2, 1)
    losses = []
    for step in range(3):
        loss = net(torch.ones(2)).sum()
        losses.append(loss)
    show(losses)
    print(unrelated([1, 2]))
    """
)


def test_a_call_site_pass_with_replay_keeps_what_it_learnt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    journals = _replaying(monkeypatch)
    codes = [f.code for f in check_source(LEARNS).findings]
    assert len(journals) >= 2 and journals[1].replayed > 0
    assert codes == ["GG502"]  # found only with the parameter learnt from the call
    monkeypatch.setattr(model, "REPLAY_STEPS", False)
    assert [f.code for f in check_source(LEARNS).findings] == codes
    monkeypatch.setattr(model, "_CALL_SITE_PASSES", 0)
    assert [f.code for f in check_source(LEARNS).findings] == []


def test_a_file_without_helpers_takes_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    journals = _replaying(monkeypatch)
    check_source("import torch\nx = torch.ones(2, requires_grad=True)\nx.sum().backward()\n")
    assert len(journals) == 1


# `report` learns from its call in the second pass; `fit` runs `train_step` on every
# iteration of its loop and reads what that step recorded of its training.
READS_A_CALLEES_TRAINING = textwrap.dedent(
    """
    import torch
    from torch import nn

    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def report(values):
        print(values)

    def train_step():
        opt.zero_grad()
        loss = model(torch.randn(4, 3)).sum()
        loss.backward()
        opt.step()

    def fit():
        for _ in range(3):
            train_step()

    def main():
        report([1.0, 2.0])
        fit()
    """
)


def test_a_step_reading_a_callees_training_replays_after_a_fresh_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`fit`'s step reads the backward calls and optimizer steps `train_step` recorded
    (`replay.own_events`), not the whole analysis lists: after `report` ran again with its
    new facts, it still replays, those events being the very same."""
    journals = _replaying(monkeypatch)
    with_replay = _findings(READS_A_CALLEES_TRAINING, "fit.py")
    assert len(journals) == 2
    # The constants, `train_step`, `fit` and the module body replay; `report` (new facts)
    # and `main` (which reads `report`'s new summary) run again.
    assert journals[1].replayed == 4
    monkeypatch.setattr(model, "REPLAY_STEPS", False)
    assert _findings(READS_A_CALLEES_TRAINING, "fit.py") == with_replay

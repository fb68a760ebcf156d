"""The project index keeps its summaries within a budget of lines (`ProjectIndex.trim`):
the least recently used are dropped with every summary resting on them, and a check that
needs one again gets the very same findings."""

from __future__ import annotations

from pathlib import Path

from gradguard.core.engine import check_source
from gradguard.project import session
from gradguard.project.index import ProjectIndex

LAYERS = """
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 6)

    def forward(self, x, h):
        return self.rnn(x, h)
"""

MODEL = """
from torch import nn

from layers import Encoder


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(6, 1)

    def forward(self, x, h):
        out, h = self.encoder(x, h)
        return self.head(out), h
"""

TRAIN = """
import torch

from model import Net

net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
hidden = None
for x, y in [(torch.randn(4, 1, 3), torch.randn(4, 1, 1))] * 3:
    optimizer.zero_grad()
    out, hidden = net(x, hidden)
    loss = ((out - y) ** 2).mean()
    loss.backward()
    optimizer.step()
"""

OTHER = "from torch import nn\n\nhead = nn.Linear(2, 2)\n" + "\n" * 40


def _project(root: Path) -> Path:
    (root / "pyproject.toml").write_text("")
    for name, text in {"layers.py": LAYERS, "model.py": MODEL, "other.py": OTHER}.items():
        (root / name).write_text(text)
    train = root / "train.py"
    train.write_text(TRAIN)
    return train


def _codes(index: ProjectIndex, train: Path) -> list[tuple[int, str]]:
    with session.checking(train, index):
        result = check_source(TRAIN, path=str(train))
    return [(f.range.start.line, f.code) for f in result.findings]


def test_findings_are_the_same_whatever_the_budget(tmp_path: Path) -> None:
    train = _project(tmp_path)
    roomy = ProjectIndex()
    expected = _codes(roomy, train)
    assert (10, "GG201") in expected  # the state carried through model.py and layers.py
    tight = ProjectIndex()
    for _ in range(3):
        assert _codes(tight, train) == expected
        tight.trim(budget=0)  # between two checks: everything is dropped
        assert tight.summarised_lines() == 0


def test_the_least_recently_used_goes_first_with_what_rests_on_it(tmp_path: Path) -> None:
    _project(tmp_path)
    index = ProjectIndex()
    layers, model, other = (tmp_path / n for n in ("layers.py", "model.py", "other.py"))
    assert index.module(model) is not None  # summarises layers.py too (model rests on it)
    assert index.module(other) is not None
    assert index.module(model) is not None  # used again: layers.py is now the oldest
    kept = index.summarised_lines()
    other_lines = OTHER.count("\n") + 1
    index.trim(budget=kept - 1)
    # layers.py was used least recently; model.py rests on it, so both go.
    assert index.summarised_lines() == other_lines
    assert index.module(other) is not None
    assert index.summarised_lines() == other_lines  # other.py was kept, not rebuilt
    assert index.module(layers) is not None and index.module(model) is not None

"""`contextual.with_run_graph`: the graph a call's result certainly went through, taken
from the run of the function with the call's arguments where the summary (which joined
paths of different structure) gives none."""

from __future__ import annotations

import pytest

from gradguard.analysis.graph import SavedNode
from tests.analysis.test_value_facets import fact_at

_FLAGGED = """
class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 4), nn.ReLU())
        self.head = nn.Linear(4, 1)
        self.left = nn.Linear(2, 1)
        self.right = nn.Linear(2, 1)

    def forward(self, h, feats=False, split=False):
        if split:
            return self.left(h), self.right(h)
        f = self.body(h)
        out = self.head(f)
        return (out, f) if feats else out

critic = Critic()
opt = torch.optim.SGD(critic.parameters(), lr=0.1)
fake = model(x)
"""


def _graphs(snippet: str, monkeypatch: pytest.MonkeyPatch) -> tuple[frozenset[SavedNode], ...]:
    value = fact_at(_FLAGGED + snippet, monkeypatch)
    assert value.elements is not None
    return tuple(part.graph for part in value.elements)


def test_parts_of_a_result_the_flag_decides_share_the_operations_they_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`(out, f) if feats else out`: the summary joins a tuple and a tensor; the run with
    `feats=True` returns the tuple, `out` computed from `f`: both go through the body."""
    out, feats = _graphs("both = critic(fake, feats=True)  # <- both\n", monkeypatch)
    assert out and feats and feats <= out


def test_the_arguments_graph_stays_the_callers(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the call is given keeps its own nodes (`fake` came through `model`)."""
    out, feats, given = _graphs(
        "o, f = critic(fake, feats=True)\nboth = (o, f, fake)  # <- both\n", monkeypatch
    )
    assert given and given <= feats and given <= out


def test_parts_computed_apart_share_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two heads over the same plain input: each part has its own nodes, and a backward of
    one frees nothing the other needs."""
    left, right = _graphs("both = critic(x, split=True)  # <- both\n", monkeypatch)
    assert left and right and not left & right


def test_each_call_builds_its_own_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = (
        "first = critic(fake, feats=True)\n"
        "both = (first[1], critic(fake, feats=True)[1], fake)  # <- both\n"
    )
    a, b, given = _graphs(snippet, monkeypatch)
    assert a - given and b - given and not (a - given) & (b - given)


def test_no_run_under_no_grad_gives_no_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = "with torch.no_grad():\n    both = critic(fake, feats=True)  # <- both\n"
    value = fact_at(_FLAGGED + snippet, monkeypatch)
    assert all(not part.graph for part in value.elements or ())

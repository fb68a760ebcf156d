"""A loop over the modules an `nn.ModuleList` holds (`for layer in
self.layers`, `for i, layer in enumerate(self.layers)`) certainly runs once per module
written out where the container was built, and binds one of them: a forward pass that
threads its input through such a loop returns the last layer's output (what one iteration
binds is known for a ModuleList of like modules)."""

from __future__ import annotations

import pytest

from tests.analysis.test_value_facets import fact_at

_MODEL = """
class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = HELD
    def forward(self, h):
        for LOOP:
            h = layer(h)
        return h
def run():
    net = Stack()
    out = net(x)  # <- out
EXTRA
"""


def _out(monkeypatch: pytest.MonkeyPatch, held: str, loop: str, extra: str = "") -> bool | None:
    snippet = _MODEL.replace("HELD", held).replace("LOOP", loop).replace("EXTRA", extra)
    return fact_at(snippet, monkeypatch).has_history


@pytest.mark.parametrize("held", ["nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])"])
@pytest.mark.parametrize(
    "loop",
    [
        "layer in self.layers",
        "i, layer in enumerate(self.layers)",
        "i, layer in enumerate(self.layers, 1)",
    ],
)
def test_a_loop_over_written_out_layers_runs_them(
    monkeypatch: pytest.MonkeyPatch, held: str, loop: str
) -> None:
    assert _out(monkeypatch, held, loop) is True


def test_an_empty_container_runs_no_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not _out(monkeypatch, "nn.ModuleList()", "layer in self.layers")


def test_a_container_the_file_changes_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    # `del net.layers[0]` may leave it empty: unknown.
    extra = "    del net.layers[0]\n"
    held = "nn.ModuleList([nn.Linear(2, 2)])"
    assert not _out(monkeypatch, held, "layer in self.layers", extra)


def test_a_rebound_enumerate_is_not_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = "def enumerate(xs):\n    return []\n"
    held = "nn.ModuleList([nn.Linear(2, 2)])"
    assert not _out(monkeypatch, held, "i, layer in enumerate(self.layers)", extra)


def test_layers_given_by_the_caller_are_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    held = "nn.ModuleList(make_layers())"
    extra = "def make_layers():\n    return []\n"
    assert not _out(monkeypatch, held, "layer in self.layers", extra)


def test_layers_built_by_a_comprehension_are_not_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `range(depth)` may be empty: the loop may run no layer.
    held = "nn.ModuleList([nn.Linear(2, 2) for _ in range(depth)])"
    assert not _out(monkeypatch, held, "layer in self.layers", "depth = int(input())\n")

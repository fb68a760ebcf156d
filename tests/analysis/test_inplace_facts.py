"""Facts about in-place changes of saved tensors and of leaves (GG301, GG302): which ops keep
their input or their result, views through basic indexing, layer lists unpacked into
`nn.Sequential`, leaves after a store, `x += f(x)`. Each snippet states the fact at its
backward call (or in-place change), with look-alikes where it must not hold; every buggy
snippet was checked to fail under torch 2.13.0 and every look-alike to run."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis import layer_lists
from gradguard.analysis.events import InPlaceChange
from gradguard.analysis.graph import Saves, function_saves, method_saves, module_saves
from gradguard.analysis.model import BackwardCall, ModuleAnalysis, analyse_module
from gradguard.analysis.values import Grad

PRELUDE = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"


def _analysis(body: str) -> ModuleAnalysis:
    source = PRELUDE + textwrap.dedent(body)
    return analyse_module(ast.parse(source), source)


def _backward(body: str) -> BackwardCall:
    """The last backward call of the snippet."""
    return _analysis(body).backward_calls[-1]


@pytest.mark.parametrize(
    ("qualified", "saves"),
    [
        ("torch.reciprocal", Saves.OUTPUT),
        ("torch.expm1", Saves.OUTPUT),
        ("torch.exp2", Saves.OUTPUT),
        ("torch.tan", Saves.OUTPUT),
        ("torch.special.expit", Saves.OUTPUT),
        ("torch.nn.functional.softmin", Saves.OUTPUT),
        ("torch.log", Saves.INPUT),
        ("torch.sin", Saves.INPUT),
        ("torch.nn.functional.gelu", Saves.INPUT),
        ("torch.nn.functional.softplus", Saves.INPUT),
        ("torch.mul", Saves.INPUTS),
        ("torch.special.logit", None),
        ("torch.add", None),
    ],
)
def test_what_functions_keep(qualified: str, saves: Saves | None) -> None:
    assert function_saves(qualified) is saves


@pytest.mark.parametrize(
    ("name", "saves"),
    [("exp2", Saves.OUTPUT), ("reciprocal", Saves.OUTPUT), ("pow", Saves.INPUT), ("add", None)],
)
def test_what_methods_keep(name: str, saves: Saves | None) -> None:
    assert method_saves(name) is saves


@pytest.mark.parametrize(
    ("qualified", "inplace", "saves"),
    [
        ("torch.nn.Softmin", False, Saves.OUTPUT),
        ("torch.nn.Softmax2d", False, Saves.OUTPUT),
        ("torch.nn.LayerNorm", False, Saves.INPUTS),
        ("torch.nn.BatchNorm2d", False, Saves.INPUTS),
        ("torch.nn.ConvTranspose2d", False, Saves.INPUTS),
        ("torch.nn.GELU", False, Saves.INPUT),
        ("torch.nn.LeakyReLU", False, Saves.INPUT),
        ("torch.nn.LeakyReLU", True, Saves.OUTPUT),
        ("torch.nn.RMSNorm", False, None),
    ],
)
def test_what_layers_keep(qualified: str, inplace: bool, saves: Saves | None) -> None:
    assert module_saves(qualified, inplace=inplace) is saves


# The tensor an op kept, changed in place before the backward (True), or a look-alike.
@pytest.mark.parametrize(
    ("body", "modified"),
    [
        # An op keeping its input; changing the input afterwards.
        ("h = layer(x)\ng = F.gelu(h)\nh += 1.0\ng.sum().backward()\n", True),
        ("h = layer(x)\nsq = h ** 2\nh *= 0.5\nsq.sum().backward()\n", True),
        # An op keeping its result: changing its input is fine.
        ("h = layer(x)\ng = torch.sigmoid(h)\nh += 1.0\ng.sum().backward()\n", False),
        # An op keeping its result, the result changed.
        ("h = layer(x)\nd = torch.reciprocal(h)\nd[0] = 0.0\nd.sum().backward()\n", True),
        ("h = layer(x)\nd = torch.reciprocal(h).clone()\nd[0] = 0.0\nd.sum().backward()\n", False),
        # A basic slice shares the tensor's version counter; an index tensor copies.
        ("b = layer(x)\nb[:, 1] = F.softplus(b[:, 0])\nb.sum().backward()\n", True),
        (
            "b = layer(x)\ni = torch.tensor([0])\n"
            "b[:, 1] = F.softplus(b[:, i])\nb.sum().backward()\n",
            False,
        ),
        # A norm layer keeps its input: `x += f(norm(x))` changes it.
        ("norm = nn.LayerNorm(4)\nx += layer(norm(x))\nx.sum().backward()\n", True),
        ("norm = nn.RMSNorm(4)\nx += layer(norm(x))\nx.sum().backward()\n", False),
        ("norm = nn.LayerNorm(4)\nx = x + layer(norm(x))\nx.sum().backward()\n", False),
    ],
)
def test_kept_tensor_changed(body: str, modified: bool) -> None:
    setup = "layer = nn.Linear(4, 4)\nx = torch.randn(3, 4)\n"
    assert bool(_backward(setup + body).through_modified) is modified


def test_layers_listed_then_unpacked_clash() -> None:
    body = """
    layers = [nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5, inplace=True), nn.Linear(8, 1)]
    net = nn.Sequential(*layers)
    net(torch.randn(2, 4)).sum().backward()
    """
    assert _backward(body).through_modified


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ("layers = [a, b]\nnn.Sequential(*layers)\n", 2),
        ("layers = (a, b, c)\nnn.Sequential(*layers)\n", 3),
        ("layers = [a]\nlayers.append(b)\nnn.Sequential(*layers)\n", None),
        ("layers = [a]\nlayers += [b]\nnn.Sequential(*layers)\n", None),
        ("layers = [a]\nlayers = [b, a]\nnn.Sequential(*layers)\n", None),
        ("layers = [a, b]\nprint(layers)\nnn.Sequential(*layers)\n", None),
        ("layers = [a, *more]\nnn.Sequential(*layers)\n", None),
        ("for layers in groups:\n    nn.Sequential(*layers)\n", None),
    ],
)
def test_literal_elements(body: str, found: int | None) -> None:
    tree = ast.parse(body)
    call = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "nn.Sequential"
    )
    elements = layer_lists.literal_elements(tree, call)
    assert (len(elements) if elements is not None else None) == found


def test_store_into_leaf_keeps_it_a_leaf() -> None:
    """Each store into a leaf that requires grad raises on its own: the second is seen too."""
    analysis = _analysis(
        """
        table = torch.zeros(4, 6, requires_grad=True)
        table[:, 0::2] = 1.0
        table[:, 1::2] = 2.0
        """
    )
    changes = analysis.events.of(InPlaceChange)
    assert [c.value.leaf and c.value.grad is Grad.TRACKED for c in changes] == [True, True]


def test_in_place_op_giving_history_makes_a_non_leaf() -> None:
    """`total += layer(x)` on a plain tensor gives it history: it is no longer a leaf, and a
    later in-place op on it is fine (checked against torch 2.13.0)."""
    analysis = _analysis(
        """
        layer = nn.Linear(4, 2)
        total = torch.zeros(3, 2)
        total += layer(torch.randn(3, 4))
        total *= 0.5
        """
    )
    last = analysis.events.of(InPlaceChange)[-1]
    assert last.value.grad is Grad.TRACKED
    assert not last.value.leaf


def test_loop_over_tensor_of_known_length_runs() -> None:
    """`for x in seq` over a tensor whose first dimension is known runs its body: the state
    after the loop is the body's."""
    body = """
    cell = nn.Linear(3, 5)
    seq = torch.randn(4, 2, 3)
    h = torch.zeros(2, 5)
    for x in seq:
        h = torch.tanh(cell(x) + h)
        h.clamp_(-0.99, 0.99)
    h.sum().backward()
    """
    assert _backward(body).through_modified
    unknown = body.replace("seq = torch.randn(4, 2, 3)", "seq = load()")
    assert not _backward(unknown).through_modified

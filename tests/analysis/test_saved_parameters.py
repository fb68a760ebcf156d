"""Which module calls certainly saved one of the module's own weights (`ParameterSaves`),
as GG205 asks it: the layer tables were checked against torch 2.13.0."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.analysis.events import ModuleCall
from gradguard.analysis.facts import ParameterSaves
from gradguard.analysis.model import analyse_module

PRELUDE = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


def _saved(body: str, input_requires_grad: bool) -> str | None:
    """What the last `net(...)` call of `body` saved, as a description."""
    source = PRELUDE + textwrap.dedent(body)
    tree = ast.parse(source)
    analysis = analyse_module(tree, source)
    qualified = {id(t.call): t.qualified for t in analysis.torch_calls}
    saves = ParameterSaves(tree, lambda call: qualified.get(id(call)))
    calls = [u for u in analysis.events.of(ModuleCall) if ast.unparse(u.target) == "net"]
    assert calls, "no call of `net`"
    use = calls[-1]
    assert isinstance(use.node, ast.Call) and use.value.module is not None
    found = saves.saved_parameter(use.node, use.value.module, input_requires_grad)
    return found.description if found is not None else None


LOCAL_CHAIN = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h).squeeze(1)

net = Net()
net(torch.randn(2, 3))
"""
LOCAL_BRANCH = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc1(x)
        return self.fc2(self.fc1(x))

net = Net()
net(torch.randn(2, 3))
"""
LOCAL_CONV_SEQUENTIAL = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten())

    def forward(self, input):
        return self.main(input).view(-1)

net = Net()
net(torch.randn(2, 1, 5, 5))
"""


@pytest.mark.parametrize(
    ("body", "input_requires_grad", "expected"),
    [
        # nn.Linear keeps its weight only for its input's gradient.
        ("net = nn.Linear(3, 1)\nnet(torch.randn(2, 3))", False, None),
        ("net = nn.Linear(3, 1)\nnet(torch.randn(2, 3))", True, "nn.Linear"),
        ("net = nn.Conv1d(1, 2, 3)\nnet(torch.randn(2, 1, 5))", False, "nn.Conv1d"),
        ("net = nn.LSTM(3, 4)\nnet(torch.randn(2, 1, 3))", False, "nn.LSTM"),
        ("net = nn.Embedding(5, 3)\nnet(torch.tensor([1]))", True, None),
        # The second Linear gets the first one's output, which requires grad.
        (
            "net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))\nnet(x)",
            False,
            "nn.Linear",
        ),
        ("net = nn.Sequential(nn.Linear(3, 4), nn.ReLU())\nnet(x)", False, None),
        # An unknown layer may cut history: nothing after it is certain.
        ("net = nn.Sequential(nn.Linear(3, 4), Cut(), nn.Linear(4, 1))\nnet(x)", False, None),
        # Bound twice: which Sequential runs is not known.
        (
            "net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))\n"
            "net = nn.Sequential(nn.Linear(3, 1))\nnet(x)",
            False,
            None,
        ),
        (LOCAL_CHAIN, False, "nn.Linear"),
        (LOCAL_BRANCH, False, None),
        (LOCAL_CONV_SEQUENTIAL, False, "nn.Conv2d"),
    ],
)
def test_saved_parameter(body: str, input_requires_grad: bool, expected: str | None) -> None:
    assert _saved(body, input_requires_grad) == expected


# A forward that runs one of its layers first and computes everything it may return from
# that layer's output (a VAE: encode, split, sample, maybe decode): any backward from the
# call runs through the layer, whatever it uses of the result.
VAE = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = {encoder}
        self.dec = nn.Linear(2, 6)

    def sample(self, mu, logvar):
        return mu + torch.randn_like(mu) * (0.5 * logvar).exp()

    def forward(self, x, latent_only=False):
{body}

net = Net()
net(torch.randn(5, 6))
"""
TWO_LAYERS = "nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))"
SPLIT_SLICES = """\
        h = self.enc(x)
        mu, logvar = h[:, :2], h[:, 2:]
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        if latent_only:
            return z.squeeze()
        return self.dec(z), mu, logvar, z
"""
SPLIT_HELPER = """\
        h = self.enc(x)
        mu, logvar = h.chunk(2, dim=1)
        z = self.sample(mu, logvar)
        return self.dec(z), z
"""
# The layer's output wrapped in differentiable functions first (`torch.tanh(self.enc(x))`).
WRAPPED = """\
        h = torch.tanh(self.enc(x)).flatten(1)
        mu, logvar = h[:, :2], h[:, 2:]
        return self.dec(mu), logvar
"""
WRAPPED_FUNCTIONAL = """\
        h = F.leaky_relu(self.enc(x))
        return self.dec(h[:, :2])
"""
# Look-alikes: some value a call may return does not come from the layer's output.
WRAPPED_DETACHED = """\
        h = torch.tanh(self.enc(x).detach())
        return self.dec(h[:, :2])
"""
WRAPPED_UNKNOWN = """\
        h = torch.round(self.enc(x))
        return self.dec(h[:, :2])
"""
EARLY_OTHER = """\
        h = self.enc(x)
        if latent_only:
            return x * 2
        return self.dec(h[:, :2])
"""
DETACHED = """\
        h = self.enc(x)
        mu, logvar = h[:, :2], h[:, 2:]
        return self.dec(mu), logvar.detach()
"""
REBOUND = """\
        h = self.enc(x)
        h = h.detach()
        return self.dec(h[:, :2])
"""
COMPARED = """\
        h = self.enc(x)
        return (h > 0).float()
"""
BOUND_IN_BRANCH = """\
        h = self.enc(x)
        if latent_only:
            z = h[:, :2]
        else:
            z = x[:, :2]
        return self.dec(z)
"""
UNKNOWN_METHOD = """\
        h = self.enc(x)
        z = self.pick(h)
        return self.dec(z)

    def pick(self, h):
        if h.sum() > 0:
            return h[:, :2]
        return torch.zeros(5, 2)
"""


@pytest.mark.parametrize(
    ("encoder", "body", "expected"),
    [
        (TWO_LAYERS, SPLIT_SLICES, "nn.Linear"),
        (TWO_LAYERS, SPLIT_HELPER, "nn.Linear"),
        # A convolution keeps its weight even on plain data.
        ("nn.Conv1d(6, 4, 1)", SPLIT_SLICES, "nn.Conv1d"),
        # The first Linear of the encoder gets plain data: it keeps no weight.
        ("nn.Sequential(nn.Linear(6, 4), nn.ReLU())", SPLIT_SLICES, None),
        (TWO_LAYERS, EARLY_OTHER, None),
        (TWO_LAYERS, DETACHED, None),
        (TWO_LAYERS, REBOUND, None),
        (TWO_LAYERS, COMPARED, None),
        (TWO_LAYERS, BOUND_IN_BRANCH, None),
        (TWO_LAYERS, UNKNOWN_METHOD, None),
        (TWO_LAYERS, WRAPPED, "nn.Linear"),
        (TWO_LAYERS, WRAPPED_FUNCTIONAL, "nn.Linear"),
        (TWO_LAYERS, WRAPPED_DETACHED, None),
        (TWO_LAYERS, WRAPPED_UNKNOWN, None),
    ],
)
def test_saved_by_a_leading_layer(encoder: str, body: str, expected: str | None) -> None:
    assert _saved(VAE.format(encoder=encoder, body=body), False) == expected


ACTOR_CRITIC = """
from torch.distributions import Categorical


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8))
        self.pi = nn.Linear(8, 2)
        self.v = nn.Linear(8, 1)

    def forward(self, x):
{body}

net = Net()
net(torch.randn(5, 4))
"""
# `Categorical(logits=...)` of the body's output: what is computed from it runs through it.
DISTRIBUTION = """\
        h = self.body(x)
        return Categorical(logits=self.pi(h)), self.v(h)
"""
# Look-alikes: a distribution of a tensor not computed from the body; of two tensors.
DISTRIBUTION_ELSEWHERE = """\
        h = self.body(x)
        return Categorical(logits=x[:, :2]), self.v(h)
"""
DISTRIBUTION_UNPACKED = """\
        h = self.body(x)
        return Categorical(**{"logits": self.pi(h)}), self.v(h)
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [(DISTRIBUTION, ("nn.Linear", "body")), (DISTRIBUTION_ELSEWHERE, None)],
)
def test_saved_through_a_distribution_and_by_which_layer(
    body: str, expected: tuple[str, str] | None
) -> None:
    """The layer `forward` runs first is named (`SavedParameter.attribute`): the weight
    belongs to the module at that attribute of the called one."""
    source = PRELUDE + textwrap.dedent(ACTOR_CRITIC.format(body=body))
    tree = ast.parse(source)
    analysis = analyse_module(tree, source)
    qualified = {id(t.call): t.qualified for t in analysis.torch_calls}
    saves = ParameterSaves(tree, lambda call: qualified.get(id(call)))
    use = [u for u in analysis.events.of(ModuleCall) if ast.unparse(u.target) == "net"][-1]
    assert isinstance(use.node, ast.Call) and use.value.module is not None
    found = saves.saved_parameter(use.node, use.value.module, False)
    got = (found.description, found.attribute) if found is not None else None
    assert got == expected


def test_a_distribution_of_unpacked_keywords_carries_nothing_known() -> None:
    source = PRELUDE + textwrap.dedent(ACTOR_CRITIC.format(body=DISTRIBUTION_UNPACKED))
    assert _saved(source[len(PRELUDE) :], False) is None

"""torch.distributions objects carry their parameters' history into what they compute.

`Categorical(logits=out)` or `Normal(mu, std)` built from tensors with history hands that
history (and the graph nodes it runs through) to `log_prob(a)`, `entropy()` and
`rsample()`; `sample()` draws without history. Checked against torch 2.13.0 (see
`torch_api._DISTRIBUTIONS`). The prelude defines `model = nn.Linear(2, 2)` and `x`.
"""

from __future__ import annotations

import pytest

from gradguard.analysis.graph import Saves
from gradguard.analysis.values import Grad, Kind, LossKind
from tests.analysis.test_value_facets import fact_at

_IMPORTS = "from torch.distributions import Categorical, Normal, Bernoulli\n"
_ACTIONS = "a = torch.tensor([0, 1, 1])\n"

# (case, snippet, kind, grad, saves of the graph's nodes or None not to check)
_FACTS = [
    ("log_prob of logits with history",
     "d = Categorical(logits=model(x))\nv = d.log_prob(a)  # <- v", Kind.TENSOR,
     Grad.TRACKED, [Saves.INPUTS, Saves.OTHER]),
    ("entropy of probs with history",
     "d = Categorical(probs=torch.softmax(model(x), -1))\nv = d.entropy()  # <- v",
     Kind.TENSOR, Grad.TRACKED, [Saves.INPUTS, Saves.OUTPUT, Saves.OTHER]),
    ("rsample of a Normal", "d = Normal(model(x), 1.0)\nv = d.rsample()  # <- v",
     Kind.TENSOR, Grad.TRACKED, [Saves.INPUTS]),
    ("the module path spelled out",
     "d = torch.distributions.normal.Normal(model(x), 0.5)\nv = d.log_prob(x)  # <- v",
     Kind.TENSOR, Grad.TRACKED, [Saves.INPUTS]),
    ("log_prob of a value with history",
     "d = Normal(torch.zeros(3, 2), torch.ones(3, 2))\nv = d.log_prob(model(x))  # <- v",
     Kind.TENSOR, Grad.TRACKED, [Saves.INPUTS]),
    ("kl_divergence of two",
     "p = Normal(model(x), 1.0)\nq = Normal(torch.zeros(3, 2), 1.0)\n"
     "v = torch.distributions.kl_divergence(p, q)  # <- v",
     Kind.TENSOR, Grad.TRACKED, [Saves.INPUTS]),
    ("the object itself is no tensor", "d = Categorical(logits=model(x))  # <- d",
     Kind.OTHER, Grad.TRACKED, [Saves.INPUTS, Saves.OTHER]),
    ("built once, its own node", "w = torch.zeros(2, requires_grad=True)\n"
     "d = Categorical(logits=w)\nv = d.log_prob(a)  # <- v", Kind.TENSOR, Grad.TRACKED,
     [Saves.OTHER]),
    ("a Normal built once saves nothing", "w = torch.zeros(2, requires_grad=True)\n"
     "d = Normal(w, 1.0)\nv = d.log_prob(x)  # <- v", Kind.TENSOR, Grad.TRACKED, []),
    # Look-alikes: no history, or nothing known.
    ("sample draws without history", "d = Categorical(logits=model(x))\nv = d.sample()  # <- v",
     Kind.TENSOR, Grad.UNTRACKED, None),
    ("built under no_grad", "with torch.no_grad():\n    d = Categorical(logits=model(x))\n"
     "v = d.log_prob(a)  # <- v", Kind.TENSOR, Grad.UNTRACKED, None),
    ("log_prob under no_grad", "d = Categorical(logits=model(x))\nwith torch.no_grad():\n"
     "    v = d.entropy()  # <- v", Kind.TENSOR, Grad.UNTRACKED, None),
    ("parameters without history", "d = Normal(torch.zeros(3), torch.ones(3))\n"
     "v = d.log_prob(torch.zeros(3))  # <- v", Kind.TENSOR, Grad.UNTRACKED, None),
    ("a method not listed", "d = Categorical(logits=model(x))\nv = d.enumerate_support()  # <- v",
     Kind.UNKNOWN, Grad.UNKNOWN, None),
    ("rsample of a discrete one raises: not known",
     "d = Bernoulli(logits=model(x))\nv = d.rsample()  # <- v", Kind.UNKNOWN, Grad.UNKNOWN, None),
    ("a class of that name defined here",
     "class Categorical:\n    def __init__(self, logits):\n        self.logits = logits\n"
     "    def log_prob(self, a):\n        return 0\nv = Categorical(model(x)).log_prob(a)  # <- v",
     Kind.SCALAR, Grad.UNTRACKED, None),
    ("a distribution class not listed",
     "d = torch.distributions.TransformedDistribution(Normal(model(x), 1.0), [])\n"
     "v = d.log_prob(x)  # <- v", Kind.UNKNOWN, Grad.UNKNOWN, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "snippet", "kind", "grad", "saves"), _FACTS, ids=[r[0] for r in _FACTS]
)
def test_distribution_facts(
    case: str,
    snippet: str,
    kind: Kind,
    grad: Grad,
    saves: list[Saves] | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = fact_at(_IMPORTS + _ACTIONS + snippet, monkeypatch)
    assert (value.kind, value.grad) == (kind, grad), case
    if saves is not None:
        assert sorted(n.saves.value for n in value.graph) == sorted(s.value for s in saves), case


def test_sample_says_why_it_has_no_history(monkeypatch: pytest.MonkeyPatch) -> None:
    value = fact_at(_IMPORTS + "d = Normal(model(x), 1.0)\nv = d.sample()  # <- v", monkeypatch)
    assert value.loss is not None and value.loss.kind is LossKind.NON_DIFFERENTIABLE
    assert value.loss.description == ".sample()"


def test_two_calls_of_a_policy_helper_build_two_graphs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper returning a distribution: each call's object runs through its own graph."""
    snippet = (
        _IMPORTS + _ACTIONS + "def policy(o):\n    return Categorical(logits=model(o))\n"
        "first = policy(x).log_prob(a)\nsecond = policy(x).entropy()\n"
        "v = (first, second)  # <- v"
    )
    value = fact_at(snippet, monkeypatch)
    assert value.elements is not None
    first, second = value.elements
    assert first.grad is Grad.TRACKED and second.grad is Grad.TRACKED
    assert first.graph and second.graph and not first.graph & second.graph


_ACTOR_CRITIC = """
class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(2, 8)
        self.pi = nn.Linear(8, 3)
        self.v = nn.Linear(8, 1)

    def forward(self, obs):
        h = torch.tanh(self.trunk(obs))
        return Categorical(logits=self.pi(h)), self.v(h)


net = ActorCritic()
{body}
"""


@pytest.mark.parametrize(
    ("body", "kind", "grad"),
    [
        ("dist, value = net(x)\nv = dist  # <- v", Kind.OTHER, Grad.TRACKED),
        ("dist, value = net(x)\nv = dist.entropy()  # <- v", Kind.TENSOR, Grad.TRACKED),
        ("with torch.no_grad():\n    dist, value = net(x)\nv = dist.log_prob(a)  # <- v",
         Kind.TENSOR, Grad.UNTRACKED),
    ],
)  # fmt: skip
def test_a_module_returning_a_distribution(
    body: str, kind: Kind, grad: Grad, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module of the file whose `forward` returns a distribution and a value: the caller
    gets a distribution of this call, its parameters computed as a tensor output is."""
    value = fact_at(_IMPORTS + _ACTIONS + _ACTOR_CRITIC.format(body=body), monkeypatch)
    assert (value.kind, value.grad) == (kind, grad)
    if grad is Grad.TRACKED:
        assert value.graph

"""An agent keeps its network in `self.net` and hands `self.net.parameters()` on (GG610).

`A2CLearner.__init__` builds `self.net = PolicyValueNet(...)`, and nothing else in the file
ever stores `net`: `self.net.parameters()` is a fresh generator. `rescale_grads` walks its
argument once to measure the norm and again to scale the gradients: the second loop sees
an exhausted generator and no gradient is ever scaled. `count_held_twice` does the same through
an instance at module level (`learner.net.parameters()` bound to a name and listed twice).

Look-alikes, each with its own attribute name (a store anywhere in the file decides it):
a module handed in from outside (`self.body = body`), an attribute re-bound in another
method (`self.encoder = encoder`), a module class whose `parameters()` returns a list,
parameters kept as a list in `__init__`, and a fresh `.parameters()` for each loop. The
first two hold a `ListedNet` at run time, whose `parameters()` is a list.

Modelled on skorch-dev/skorch#187, where a `named_parameters()` generator shared by
several callbacks is exhausted by the first one and the next callback sees nothing
(https://github.com/skorch-dev/skorch/issues/187).
"""

import torch
from torch import nn


def rescale_grads(params, max_norm):
    total = 0.0
    for p in params:
        total += float((p.grad**2).sum())
    scale = max_norm / (total**0.5 + 1e-6)
    count = 0
    for p in params:  # expect: GG610
        p.grad.mul_(min(scale, 1.0))
        count += 1
    return count


class PolicyValueNet(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh())
        self.policy = nn.Linear(16, n_actions)
        self.value = nn.Linear(16, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.policy(h), self.value(h)


class ListedNet(nn.Module):
    """A module whose `parameters()` is a list: iterating it twice is fine."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def parameters(self, recurse=True):
        return list(super().parameters(recurse))


class A2CLearner:
    def __init__(self, obs_dim, n_actions):
        self.net = PolicyValueNet(obs_dim, n_actions)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.kept = list(self.net.parameters())

    def update(self, obs):
        logits, value = self.net(obs)
        loss = logits.logsumexp(-1).mean() + value.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        return rescale_grads(self.net.parameters(), 0.01)

    def norms_twice(self):
        first = [float(p.detach().norm()) for p in self.kept]
        second = [float(p.detach().norm()) for p in self.kept]
        return len(first) + len(second)

    def fresh_loops(self):
        n = 0
        for p in self.net.parameters():
            n += 1
        for p in self.net.parameters():
            n += 1
        return n


class Holder:
    def __init__(self, body):
        self.body = body

    def count_twice(self):
        ps = self.body.parameters()
        return len(list(ps)) + len(list(ps))


class Swapper:
    def __init__(self):
        self.encoder = PolicyValueNet(4, 2)

    def use(self, encoder):
        self.encoder = encoder

    def count_twice(self):
        ps = self.encoder.parameters()
        return len(list(ps)) + len(list(ps))


class ListedHolder:
    def __init__(self):
        self.backbone = ListedNet()

    def count_twice(self):
        ps = self.backbone.parameters()
        return len(list(ps)) + len(list(ps))


learner = A2CLearner(4, 2)


def count_held_twice():
    ps = learner.net.parameters()
    first = len(list(ps))
    second = len(list(ps))  # expect: GG610
    return first, second


if __name__ == "__main__":
    torch.manual_seed(0)
    scaled = learner.update(torch.randn(8, 4))
    assert scaled == 0, scaled  # the scaling loop ran zero times: nothing was clipped
    grad_norm = sum(float((p.grad**2).sum()) for p in learner.net.parameters()) ** 0.5
    assert grad_norm > 0.01, grad_norm
    assert count_held_twice() == (6, 0)
    assert learner.norms_twice() == 12 and learner.fresh_loops() == 12

    assert Holder(ListedNet()).count_twice() == 4
    swapper = Swapper()
    swapper.use(ListedNet())
    assert swapper.count_twice() == 4
    assert ListedHolder().count_twice() == 4
    print("ok: the held module's generator was exhausted; the look-alikes iterate twice")

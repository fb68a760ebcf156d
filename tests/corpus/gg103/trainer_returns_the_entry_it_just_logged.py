"""A trainer logs each batch loss detached and hands back the logged entry (GG103).

`Runner._loss` appends `loss.detach()` to `self.history` and returns `self.history[-1]`,
the entry it has just appended, to `fit`, which backpropagates it. Every entry of the list
is cut, so backward raises "element 0 of tensors does not require grad" (checked with torch
2.13.0 below). The read sits in the method that appends, after its only append: the list
holds at most what that append (and the class's other appends) put there.

Look-alikes stay silent: a logger that keeps the live loss, one whose other method appends
live losses to the same list, and one that appends through a nested function, whose call
may come after the read.
"""

import torch
from torch import nn


class Runner:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.history = []

    def _loss(self, x, y):
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.history.append(loss.detach())  # expect: GG103
        return self.history[-1]

    def fit(self, x, y):
        self.opt.zero_grad()
        self._loss(x, y).backward()
        self.opt.step()


class LiveRunner:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.losses = []

    def _loss(self, x, y):
        self.losses.append(nn.functional.cross_entropy(self.net(x), y))
        return self.losses[-1]

    def fit(self, x, y):
        self.opt.zero_grad()
        self._loss(x, y).backward()
        self.opt.step()


class MixedRunner:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.records = []

    def warm_up(self, x, y):
        self.records.append(nn.functional.cross_entropy(self.net(x), y))

    def _loss(self, x, y):
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.records.append(loss.detach())
        return self.records[0]

    def fit(self, x, y):
        self.warm_up(x, y)
        self._loss(x, y).backward()


class DeferredRunner:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.kept = []

    def _loss(self, x, y):
        loss = nn.functional.cross_entropy(self.net(x), y)

        def keep(value):
            self.kept.append(value)

        self.kept.append(loss.detach())
        keep(loss)
        return self.kept[-1]

    def fit(self, x, y):
        self._loss(x, y).backward()


if __name__ == "__main__":
    x, y = torch.randn(3, 4), torch.tensor([0, 1, 1])
    for runner in (LiveRunner(), MixedRunner(), DeferredRunner()):
        runner.fit(x, y)
    try:
        Runner().fit(x, y)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the detached entry to fail")

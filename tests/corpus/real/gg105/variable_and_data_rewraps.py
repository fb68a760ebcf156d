"""Legacy-style training code that re-wraps tensors: a speech model's `compute_objectives`
wraps its loss in `Variable(loss, requires_grad=True)` to silence "element 0 of tensors does
not require grad" (the loss is now a fresh leaf: backward runs and trains nothing), a helper
wraps the predictions in `Variable(...)`, and a regression step rebuilds the output with
`torch.tensor(out.data)` to change its dtype. In torch 2.13.0 `Variable(t)` is a new tensor
without `t`'s history, and `torch.tensor(out.data)` copies data already cut from the graph:
each backward raises (or, forced, trains nothing). The fixed twins use the tensors as they
are; the look-alikes wrap inputs and targets, which never had history.

Sources (rewritten in our own words, structure kept):
* https://github.com/speechbrain/speechbrain/issues/735 - `loss = Variable(loss,
  requires_grad=True)` added to make `backward()` run.
* https://github.com/Kostis-S-Z/exploring_meta/issues/16 - a loss "manually set to
  requires_grad=True" to make backward run.
* https://blog.csdn.net/realitycss/article/details/116855385 - `.data` is only the data.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable


class Brain:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def compute_objectives(self, feats, labels):
        predict = self.model(feats)
        loss = F.cross_entropy(predict, labels)
        return Variable(loss, requires_grad=True)  # expect: GG105

    def compute_objectives_fixed(self, feats, labels):
        predict = self.model(feats)
        return F.cross_entropy(predict, labels)

    def fit_batch(self, feats, labels):
        loss = self.compute_objectives(feats, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def wrap_predictions(model, x):
    return Variable(model(x))  # expect: GG105


def regression_step(model, optimizer, x, y):
    out = model(x)
    out = torch.tensor(out.data, dtype=torch.float64)  # expect: GG105
    loss = F.mse_loss(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def regression_step_fixed(model, optimizer, x, y):
    out = model(x).to(torch.float64)
    loss = F.mse_loss(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


brain = Brain()
feats, labels = torch.randn(6, 10), torch.randint(0, 4, (6,))
before = [p.clone() for p in brain.model.parameters()]
brain.fit_batch(feats, labels)
assert all(torch.equal(a, b) for a, b in zip(before, brain.model.parameters()))
loss = brain.compute_objectives_fixed(feats, labels)
loss.backward()
assert brain.model[0].weight.grad is not None

net = nn.Linear(3, 1)
x, y = torch.randn(5, 3), torch.randn(5, 1, dtype=torch.float64)
preds = wrap_predictions(net, x)
try:
    preds.sum().backward()
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
try:
    regression_step(net, opt, x, y)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
regression_step_fixed(net, opt, x, y)

# Look-alikes: legacy wrapping of inputs and targets, which never had history.
inputs = Variable(torch.randn(5, 3), requires_grad=True)
targets = Variable(torch.randn(5, 1))
mse = F.mse_loss(net(inputs), targets)
mse.backward()
assert inputs.grad is not None
target = Variable(net(x).data)
loss = F.mse_loss(net(x), target + 1.0)
loss.backward()

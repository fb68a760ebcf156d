"""A training loop detaches the network's outputs right after the forward pass, so that the
same tensor can feed the accuracy metric and a numpy confusion matrix, and then computes the
loss from the detached outputs: `loss.backward()` raises "element 0 of tensors does not
require grad and does not have a grad_fn". The fixed twin detaches only for the metrics.

Sources (rewritten in our own words, structure kept):
* https://theneuralbase.pages.dev/pytorch/learn/beginner/detach-stopping-gradient-flow/ -
  a detached tensor's values are used, no gradient flows through it.
* https://github.com/zhuangdizhu/FedGen/issues/1 - `.detach()` added to silence a numpy
  error, moving the failure elsewhere.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def run_epoch(model, optimizer, loader):
    confusion = np.zeros((3, 3), dtype=np.int64)
    for x, y in loader:
        outputs = model(x).detach()  # expect: GG103
        for t, p in zip(y.numpy(), outputs.argmax(1).numpy()):
            confusion[t, p] += 1
        loss = F.cross_entropy(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return confusion


def run_epoch_fixed(model, optimizer, loader):
    confusion = np.zeros((3, 3), dtype=np.int64)
    for x, y in loader:
        outputs = model(x)
        for t, p in zip(y.numpy(), outputs.detach().argmax(1).numpy()):
            confusion[t, p] += 1
        loss = F.cross_entropy(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return confusion


model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 10), torch.randint(0, 3, (8,)))]
outputs = model(loader[0][0]).detach()  # expect: GG103
loss = F.cross_entropy(outputs, loader[0][1])
try:
    loss.backward()
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
try:
    run_epoch(model, optimizer, loader)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
print(run_epoch_fixed(model, optimizer, loader))

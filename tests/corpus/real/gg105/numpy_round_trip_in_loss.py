"""A regression script computes its loss with numpy: the predictions go through
`.detach().numpy()`, the error is computed in numpy and `torch.from_numpy(...)` wraps the
result back. The wrapped tensor has no history: `loss.backward()` raises "element 0 of
tensors does not require grad and does not have a grad_fn". The fixed twin stays in torch.
GradGuard reports it as GG102 (data converted out of the graph, then re-wrapped).

Sources (rewritten in our own words, structure kept):
* https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261 - values
  rebuilt into a new tensor lose their gradient.
* https://php.bkmy88.com/faq/1835025.html - "element 0 of tensors does not require grad"
  when the loss is computed from values taken out of the graph.
"""

import numpy as np
import torch
from torch import nn


def weighted_mae(pred, target, weights):
    diff = np.abs(pred.detach().cpu().numpy() - target.numpy())
    return torch.from_numpy(diff * weights).mean()  # expect: GG102


def weighted_mae_fixed(pred, target, weights):
    diff = (pred - target).abs()
    return (diff * torch.from_numpy(weights)).mean()


def train_epoch(model, optimizer, loader, weights):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = weighted_mae(model(x), y, weights)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total


model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(model.parameters())
w = np.ones((4, 1), dtype=np.float32)
x, y = torch.randn(4, 3), torch.randn(4, 1)
optimizer.zero_grad()
loss = weighted_mae(model(x), y, w)
try:
    loss.backward()
except RuntimeError as error:
    assert "does not require grad" in str(error)
fixed = weighted_mae_fixed(model(x), y, w)
fixed.backward()
try:
    train_epoch(model, optimizer, [(x, y)], w)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)

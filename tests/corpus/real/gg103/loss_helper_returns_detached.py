"""A helper computes the loss and returns it already detached "to save memory" (the author
meant the value kept for logging), and the training function given the model and optimizer
as parameters backpropagates what the helper returned: "element 0 of tensors does not
require grad and does not have a grad_fn". The fixed helper returns the loss and a float.

Sources (rewritten in our own words, structure kept):
* https://theneuralbase.pages.dev/pytorch/learn/beginner/detach-stopping-gradient-flow/
* https://github.com/zhuangdizhu/FedGen/issues/15
"""

import torch
import torch.nn.functional as F
from torch import nn


def compute_loss(model, batch):
    x, y = batch
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    return loss.detach().cpu()  # expect: GG103


def compute_loss_fixed(model, batch):
    x, y = batch
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    return loss, loss.item()


def train(model, optimizer, loader):
    history = []
    for batch in loader:
        loss = compute_loss(model, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(float(loss))
    return history


def train_fixed(model, optimizer, loader):
    history = []
    for batch in loader:
        loss, value = compute_loss_fixed(model, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(value)
    return history


net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(6, 4), torch.randint(0, 2, (6,)))]
try:
    train(net, opt, data)
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
print(train_fixed(net, opt, data))

"""Losses returned in dicts by step helpers, and outputs of forward() returned in dicts.

Lightning-style `training_step` helpers return `{"loss": loss, ...}`; scripts written
around them often add `result["loss"]` to a running total (the memory-growth reports on
discuss.pytorch.org about "total_loss += loss" inside such loops). The model and the
optimizer arrive as parameters of `fit`, which the script calls with objects it builds.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 3)

    def forward(self, x):
        logits = self.body(x)
        return {"logits": logits, "probs": logits.softmax(-1).detach()}  # expect: GG103


def training_step(model, x, y):
    out = model(x)
    loss = F.cross_entropy(out["logits"], y)
    return {"loss": loss, "accuracy": (out["logits"].argmax(-1) == y).float().mean().item()}


def fit(model, batches, optimizer):
    running = 0.0
    accuracy = 0.0
    for x, y in batches:
        result = training_step(model, x, y)
        optimizer.zero_grad()
        result["loss"].backward()
        optimizer.step()
        running += result["loss"]  # expect: GG203
        accuracy += result["accuracy"]


def fit_with_item(model, batches, optimizer):
    running = 0.0
    for x, y in batches:
        result = training_step(model, x, y)
        optimizer.zero_grad()
        result["loss"].backward()
        optimizer.step()
        running += result["loss"].item()


def probabilities_backward(model, x):
    out = model(x)
    out["probs"].sum().backward()


def logits_backward(model, x):
    out = model(x)
    out["logits"].sum().backward()


net = Classifier()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(4, 6), torch.tensor([0, 1, 2, 0]))]
fit(net, data, opt)
fit_with_item(net, data, opt)
probabilities_backward(net, torch.randn(4, 6))
logits_backward(net, torch.randn(4, 6))

"""Bugs that cross a function boundary inside one file: the helper computes, the caller
decides the grad mode or backpropagates.

Modelled on recurring forum shapes ("element 0 of tensors does not require grad" after
moving the loss computation into a helper called under `torch.no_grad()`; a `compute_loss`
helper returning `loss.item()`; a model whose `forward` is decorated with
`@torch.no_grad()` copied from an inference wrapper; training a step helper that receives
the model and the optimizer).
"""

import torch
from torch import nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)

    def forward(self, x):
        return self.fc(x)


class FrozenForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)

    @torch.no_grad()  # expect: GG101
    def forward(self, x):
        return self.fc(x)


def compute_loss(model, x, y):
    return F.mse_loss(model(x), y)


def compute_loss_value(model, x, y):
    return F.mse_loss(model(x), y).item()  # expect: GG102


def step(model, optimizer, x, y):
    loss = compute_loss(model, x, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def step_on_value(model, optimizer, x, y):
    loss = compute_loss_value(model, x, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main():
    model = Regressor()
    frozen = FrozenForward()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 6), torch.randn(8, 1)
    step(model, optimizer, x, y)
    step_on_value(model, optimizer, x, y)
    with torch.no_grad():  # expect: GG101
        loss = compute_loss(model, x, y)
    loss.backward()
    F.mse_loss(frozen(x), y).backward()
    with torch.no_grad():
        print("validation", compute_loss(model, x, y).item())


main()

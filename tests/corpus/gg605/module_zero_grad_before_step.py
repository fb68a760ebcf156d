"""`model.zero_grad()` between backward() and the step of an optimizer built from
`model.parameters()` (GG605).

Clearing through the module clears exactly the gradients the optimizer was given, so the
step finds none (None since PyTorch 2.0) and changes nothing. The shape of the question in
https://discuss.pytorch.org/t/model-zero-grad-or-optimizer-zero-grad/28426, with the calls
in the wrong order.

The look-alikes clear after the step, clear a module the optimizer does not hold, or build
the optimizer from something other than `model.parameters()` (what it holds is not read here).
"""

import torch
from torch import nn


def train(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        model.zero_grad()  # expect: GG605
        optimizer.step()


def train_cleared_after_step(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        model.zero_grad()


def train_head_only(backbone, head, batches):
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(head(backbone(x)), y)
        loss.backward()
        backbone.zero_grad()
        optimizer.step()


def train_from_groups(model, groups, batches):
    optimizer = torch.optim.SGD(groups, lr=0.1)
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        model.zero_grad()
        optimizer.step()


def main():
    batches = [(torch.randn(4, 3), torch.randn(4, 1))]
    model = nn.Linear(3, 1)
    before = model.weight.detach().clone()
    train(model, batches)
    assert torch.equal(before, model.weight)  # the step changed nothing
    train_cleared_after_step(model, batches)
    assert not torch.equal(before, model.weight)
    backbone, head = nn.Linear(3, 3), nn.Linear(3, 1)
    before = head.weight.detach().clone()
    train_head_only(backbone, head, batches)
    assert not torch.equal(before, head.weight)


if __name__ == "__main__":
    main()

"""A trainer given its model updates the weights by hand, outside torch.no_grad() (GG301).

`HandTrainer(model)` keeps the model on `self`; its `update` loops over
`self.model.parameters()` and subtracts the scaled gradient in place. With recording on,
an in-place change of a leaf that requires grad raises "a leaf Variable that requires grad
is being used in an in-place operation" (checked with torch 2.13.0 below). The class learns
what `self.model` is from its only construction. The look-alike does the same update under
`torch.no_grad()`.

Modelled on a manual-SGD trainer of the team's second blind corpus (a hand-written
optimizer step in a class that receives the model).
"""

import torch
from torch import nn


class HandTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.lr = lr

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.model.zero_grad()
        loss.backward()
        self.update()

    def update(self):
        for p in self.model.parameters():
            p -= self.lr * p.grad  # expect: GG301


class NoGradTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.lr = lr

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in self.model.parameters():
                p -= self.lr * p.grad


def main():
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    try:
        HandTrainer(nn.Linear(3, 1)).step(x, y)
    except RuntimeError as error:
        assert "leaf Variable that requires grad" in str(error)
    else:
        raise AssertionError("expected the in-place update to fail")
    NoGradTrainer(nn.Linear(3, 1)).step(x, y)


if __name__ == "__main__":
    main()

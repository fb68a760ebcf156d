"""A trainer keeps its model and its optimizer from `__init__`; a method that starts a run
over builds a fresh model into `self.model`, and the training method keeps stepping the
optimizer built on the first one.

`restart()` re-binds `self.model` to a new network and leaves `self.optimizer` as it was,
holding the first network's parameters. After the restart, `fit` computes its losses with
the new network, whose gradients no step ever applies: the new weights never change
(checked with torch 2.13.0: `__main__` exits with an error).

The question and its answer (the optimizer must be built again for the new network) are
https://github.com/pytorch/pytorch/issues/54765; written anew for this corpus.
"""

import torch
from torch import nn


def build_regressor(width):
    return nn.Sequential(nn.Linear(5, width), nn.Tanh(), nn.Linear(width, 1))


class Trainer:
    def __init__(self, width=16, lr=0.05):
        self.width = width
        self.model = build_regressor(width)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)

    def restart(self):
        self.model = build_regressor(self.width)  # expect: GG604

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, x, y, epochs=3):
        return [self.step(x, y) for _ in range(epochs)]


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = torch.randn(32, 5), torch.randn(32, 1)
    trainer = Trainer()
    trainer.fit(x, y)
    trainer.restart()
    before = trainer.model[0].weight.detach().clone()
    trainer.fit(x, y)
    if torch.equal(before, trainer.model[0].weight):
        raise SystemExit("the restarted model never trained: the optimizer holds the old one")

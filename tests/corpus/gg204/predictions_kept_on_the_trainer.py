"""A trainer keeps its validation predictions on `self` without no_grad (GG204).

Modelled on https://github.com/skorch-dev/skorch/issues/218: the library's validation step
ran the network with autograd on, and the predictions it collected kept every batch's graph,
so memory grew until the validation ran out of it; wrapping the step in `torch.no_grad()`
fixed it. Here a trainer class collects each validation batch's predictions in
`self.predictions`, which its metrics read afterwards; nothing backpropagates through them.
The look-alike trainer keeps the outputs of its pseudo-labelling pass on `self.buffer` and
does backpropagate through them (a consistency loss), so their graphs are needed.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Trainer:
    def __init__(self, net, lr=0.1):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=lr)
        self.predictions = []

    def _predict(self, x):
        return self.net(x)

    def train_epoch(self, batches):
        self.net.train()
        for x, y in batches:
            self.optimizer.zero_grad()
            F.mse_loss(self._predict(x), y).backward()
            self.optimizer.step()

    def validate(self, batches):
        self.net.eval()
        self.predictions = []
        for x, _ in batches:  # expect: GG204
            self.predictions.append(self._predict(x))
        return torch.cat(self.predictions).mean().item()


class ConsistencyTrainer:
    def __init__(self, net, lr=0.1):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=lr)
        self.buffer = []

    def pseudo_label(self, batches):
        self.net.eval()
        self.buffer = []
        for x, _ in batches:
            self.buffer.append(self.net(x))

    def consistency_step(self):
        self.net.train()
        self.optimizer.zero_grad()
        torch.stack(self.buffer).var(dim=0).mean().backward()
        self.optimizer.step()


def batches(count=3):
    return [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(count)]


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(nn.Linear(3, 1))
    trainer.train_epoch(batches())
    trainer.validate(batches())
    assert trainer.predictions[0].requires_grad, "the kept predictions still hold graphs"
    consistency = ConsistencyTrainer(nn.Linear(3, 1))
    consistency.pseudo_label(batches())
    consistency.consistency_step()
    assert consistency.net.weight.grad is not None
    print("ok")

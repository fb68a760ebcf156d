"""Look-alikes: an exponential moving average of a model whose copy's parameters were
detached in place.

The EMA copy is made with `copy.deepcopy(model)` and each of its parameters is detached in
place (`p.detach_()`), which turns its `requires_grad` off as a freeze does. Updating them
in place afterwards, with gradients on, is allowed (checked with torch 2.13.0): silent, in a
loop over the copy's parameters and in a loop zipping them with the model's, also in a
helper given both parameter lists. Modelled on the EMA handlers of training libraries
(e.g. pytorch-ignite's EMAHandler, which detaches its copy the same way), written anew for
this corpus.
"""

import copy

import torch
from torch import nn


class EMA:
    def __init__(self, model, momentum=0.01):
        self.model = model
        self.momentum = momentum
        self.shadow = copy.deepcopy(model)
        for p in self.shadow.parameters():
            p.detach_()

    def update(self):
        for shadow_p, model_p in zip(self.shadow.parameters(), self.model.parameters()):
            shadow_p.mul_(1.0 - self.momentum).add_(model_p.data, alpha=self.momentum)

    def decay(self, factor):
        for p in self.shadow.parameters():
            p.mul_(factor)


def blend(targets, sources, weight):
    for t, s in zip(targets, sources):
        t.mul_(1.0 - weight).add_(s.data, alpha=weight)


def main():
    model = nn.Linear(3, 2)
    ema = EMA(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.randn(4, 3)).pow(2).mean().backward()
        optimizer.step()
        ema.update()
        ema.decay(0.999)
        blend(ema.shadow.parameters(), model.parameters(), 0.5)
    assert not any(p.requires_grad for p in ema.shadow.parameters())


if __name__ == "__main__":
    main()

"""A helper given the model splits its parameters into groups from one generator (GG610).

`configure_optimizer(model, ...)` binds `named = model.named_parameters()` and builds the
weight-decay group and the no-decay group with two comprehensions over it. The first one
iterates the generator to its end, so the second builds an empty list: the biases and the
LayerNorm never reach the optimizer and never train (checked with torch 2.13.0 below: the
optimizer holds fewer tensors than the model has).
The helper is called once, with a model built right there, so `model` certainly is that
`nn.Module` and its `named_parameters()` is torch's generator.

Look-alikes: the generator bound as a list first; a helper called with two different objects
(one of them a plain class whose `named_parameters` returns a list), so its parameter is not
known to hold a module.

Modelled on the weight-decay grouping case of the team's blind corpus (h8), the usual
"no_decay" parameter split of transformer training scripts.
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.fc(x))


class Listed:
    def __init__(self, model):
        self.model = model

    def named_parameters(self):
        return list(self.model.named_parameters())


def configure_optimizer(model, lr, weight_decay):
    named = model.named_parameters()
    decay = [p for _, p in named if p.ndim >= 2]
    no_decay = [p for _, p in named if p.ndim < 2]  # expect: GG610
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr)


def configure_listed(model, lr):
    named = list(model.named_parameters())
    decay = [p for _, p in named if p.ndim >= 2]
    no_decay = [p for _, p in named if p.ndim < 2]
    return torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}], lr=lr)


def configure_any(source, lr):
    named = source.named_parameters()
    decay = [p for _, p in named if p.ndim >= 2]
    no_decay = [p for _, p in named if p.ndim < 2]
    return torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}], lr=lr)


def held(optimizer):
    return sum(len(group["params"]) for group in optimizer.param_groups)


def main():
    net = Net()
    every = len(list(net.parameters()))
    assert held(configure_listed(net, 0.1)) == every
    assert held(configure_any(Listed(net), 0.1)) == every
    assert held(configure_any(Listed(Net()), 0.1)) == every
    assert held(configure_optimizer(net, 0.1, 0.01)) < every, "expected the no-decay group empty"


if __name__ == "__main__":
    main()

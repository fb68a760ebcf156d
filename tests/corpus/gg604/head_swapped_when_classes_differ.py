"""The head is swapped only when the label count differs, after the optimizer (GG604).

`main` loads a pretrained network through a helper that returns the model it was given,
builds the optimizer, and then, when the task has another number of classes, replaces
`model.fc`. Whenever that branch runs the optimizer does not hold the new head, which keeps
its initial weights (checked with torch 2.13.0 below); the replacement is reported. The
look-alike builds the optimizer after the same conditional swap. (A `train` function also
called with a fresh optimizer elsewhere would not know the one it steps is stale: the facts
of its parameter are what every call agrees on.)

Modelled on the torchvision fine-tuning recipe the team's second blind corpus cites
(https://github.com/pytorch/pytorch/issues/14467).
"""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        return self.fc(self.features(x))


def load_pretrained(model, state):
    model.load_state_dict(state)
    return model


def train(model, optimizer, steps=3):
    for _ in range(steps):
        x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def main(classes=3):
    model = load_pretrained(Backbone(), Backbone().state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if classes != model.fc.out_features:
        model.fc = nn.Linear(8, classes)  # expect: GG604
    before = model.fc.weight.detach().clone()
    train(model, optimizer)
    return torch.equal(before, model.fc.weight)


def main_fixed(classes=3):
    model = load_pretrained(Backbone(), Backbone().state_dict())
    if classes != model.fc.out_features:
        model.fc = nn.Linear(8, classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.fc.weight.detach().clone()
    for _ in range(3):
        x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return torch.equal(before, model.fc.weight)


if __name__ == "__main__":
    assert main(), "the new head trained"
    assert not main_fixed()

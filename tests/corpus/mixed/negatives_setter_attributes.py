"""Look-alikes of a loss kept on the model by a setter (`model.add_loss_op(nn.NLLLoss())`,
Text-Classification-Models-Pytorch#9): each class below ends its `forward` with a softmax
and reads `self.loss_op` set by a setter, but what the attribute holds is not certain, so
nothing is reported:

* the attribute is also set from outside the class (`model.loss_op = ...`);
* the class body gives it a default;
* the setter is also called with something unknown.

Each loss these classes end up with takes the log of the probabilities itself, so the
file runs and trains correctly.
"""

import torch
from torch import nn


class LogNLL(nn.Module):
    def forward(self, probs, target):
        return nn.functional.nll_loss(torch.log(probs), target)


class SetFromOutside(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.fc(x))

    def add_loss_op(self, loss_op):
        self.loss_op = loss_op

    def step(self, x, y):
        return self.loss_op(self(x), y)


class WithDefault(nn.Module):
    loss_op = LogNLL()

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=1)

    def add_loss_op(self, loss_op):
        self.loss_op = loss_op

    def step(self, x, y):
        return self.loss_op(self(x), y)


class CalledWithUnknown(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=1)

    def add_loss_op(self, loss_op):
        self.loss_op = loss_op

    def step(self, x, y):
        return self.loss_op(self(x), y)


def make_loss(name):
    return globals()[name]()


x, y = torch.randn(4, 8), torch.randint(0, 3, (4,))
outside = SetFromOutside()
outside.add_loss_op(nn.NLLLoss())
outside.loss_op = LogNLL()
outside.step(x, y).backward()

defaulted = WithDefault()
defaulted.step(x, y)

unknown = CalledWithUnknown()
unknown.add_loss_op(make_loss("LogNLL"))
unknown.step(x, y)

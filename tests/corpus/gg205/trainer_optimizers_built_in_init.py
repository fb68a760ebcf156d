"""A trainer steps the encoder between two backward passes through one retained graph (GG205).

The trainer builds both optimizers in `__init__`, from the modules it is given, and keeps
them on `self`. `train_step` computes one shared feature batch, backpropagates the task loss
with `retain_graph=True`, steps the encoder's optimizer, and only then backpropagates the
auxiliary loss through the same encoder graph: the step changed the encoder's weight in
place, which its second nn.Linear saved to backpropagate into the first, and backward raises "one of the variables needed for
gradient computation has been modified by an inplace operation" (checked with torch 2.13.0
below). The optimizer read in `train_step` is the one `__init__` stored, holding
`self.encoder`'s parameters, because `__init__` makes the only store of both attributes.

Look-alikes: both backward passes before the step; a trainer whose optimizer another method
rebuilds (two stores: which one a step uses is not known); and a file-level
`add_param_group` elsewhere would make any optimizer's contents unknown (not shown here).

Modelled on the OOD re-weighting trainer of the team's blind corpus (h13), whose report is a
two-network trainer stepping one network between the two backward passes.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 5)
        self.fc2 = nn.Linear(5, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(4, 3)

    def forward(self, h):
        return self.out(h)


class Trainer:
    def __init__(self, encoder, head):
        self.encoder, self.head = encoder, head
        self.optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
        self.head_optimizer = torch.optim.SGD(self.head.parameters(), lr=0.1)

    def train_step(self, x, y):
        features = self.encoder(x)
        loss = F.cross_entropy(self.head(features), y)
        aux = features.pow(2).mean()
        self.optimizer.zero_grad()
        self.head_optimizer.zero_grad()
        loss.backward(retain_graph=True)
        self.optimizer.step()  # expect: GG205
        aux.backward()
        self.head_optimizer.step()

    def train_step_fixed(self, x, y):
        features = self.encoder(x)
        loss = F.cross_entropy(self.head(features), y)
        aux = features.pow(2).mean()
        self.optimizer.zero_grad()
        self.head_optimizer.zero_grad()
        loss.backward(retain_graph=True)
        aux.backward()
        self.optimizer.step()
        self.head_optimizer.step()


class RebuildingTrainer:
    def __init__(self, encoder):
        self.encoder = encoder
        self.optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)

    def reset(self):
        self.optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)

    def train_step(self, x):
        features = self.encoder(x)
        self.optimizer.zero_grad()
        features.sum().backward(retain_graph=True)
        self.optimizer.step()
        features.mean().backward()


def main():
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    trainer = Trainer(Encoder(), Head())
    trainer.train_step_fixed(x, y)
    try:
        trainer.train_step(x, y)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the second backward to fail")
    rebuilding = RebuildingTrainer(Encoder())
    rebuilding.reset()
    rebuilding.train_step(x)


if __name__ == "__main__":
    main()

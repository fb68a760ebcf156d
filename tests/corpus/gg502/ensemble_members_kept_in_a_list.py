"""An ensemble keeps its members in a list and hands their losses to numpy (GG502).

`Ensemble.__init__` builds its members with a list comprehension and keeps the list on
`self`. `report()` asks every member for its validation loss, computed with gradient
recording on, and converts each with `.numpy()`: "Can't call numpy() on Tensor that requires
grad" (checked with torch 2.13.0 below). The list is never changed after `__init__`, so every
element is a `Member`, whose `validation_loss` the analysis follows.

Look-alikes: the losses detached first, and an ensemble whose list another method grows with
objects of any kind (its elements are then not known).

Modelled on the FedAvg server of the team's blind corpus (h14), whose users are kept in a
list built by a comprehension.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Member:
    def __init__(self):
        self.model = nn.Linear(4, 2)
        self.x = torch.randn(5, 4)
        self.y = torch.randint(0, 2, (5,))

    def validation_loss(self):
        return F.cross_entropy(self.model(self.x), self.y)


class Ensemble:
    def __init__(self, size):
        self.members = [Member() for _ in range(size)]

    def report(self):
        losses = [m.validation_loss() for m in self.members]
        return np.array([loss.numpy() for loss in losses])  # expect: GG502

    def report_fixed(self):
        losses = [m.validation_loss().detach() for m in self.members]
        return np.array([loss.numpy() for loss in losses])


class GrowingEnsemble:
    def __init__(self, size):
        self.pool = [Member() for _ in range(size)]

    def add(self, member):
        self.pool.append(member)

    def report(self):
        return [m.validation_loss().numpy() for m in self.pool]


class Fixed:
    def validation_loss(self):
        return torch.zeros(())


if __name__ == "__main__":
    ensemble = Ensemble(3)
    ensemble.report_fixed()
    growing = GrowingEnsemble(0)
    growing.add(Fixed())
    growing.report()
    try:
        ensemble.report()
    except RuntimeError as error:
        assert "requires grad" in str(error)
    else:
        raise AssertionError("expected numpy() to refuse the losses")

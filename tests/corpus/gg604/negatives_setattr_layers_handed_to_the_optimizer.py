"""Layers swapped by `setattr` and then given to the optimizer (GG604 look-alike, silent).

The same swap as `layers_swapped_by_setattr_over_names.py`, but the helper that rebuilds
the layers also adds their parameters to the optimizer it is given
(`optimizer.add_param_group`), so every step updates the new layers. Checked with torch
2.13.0 below.
"""

import torch
import torch.nn.functional as F
from torch import nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(5, 10)
        self.second = nn.Linear(10, 2)

    def forward(self, x):
        return self.second(F.relu(self.first(x)))


def regrow(model, optimizer):
    for name in ("first", "second"):
        old = getattr(model, name)
        setattr(model, name, nn.Linear(old.in_features, old.out_features))
        optimizer.add_param_group({"params": getattr(model, name).parameters()})
    return model


def main():
    model = TwoLayer()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model = regrow(model, optimizer)
    before = model.first.weight.detach().clone()
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(4, 5)), torch.zeros(4, 2))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return torch.equal(before, model.first.weight)


if __name__ == "__main__":
    torch.manual_seed(0)
    assert not main(), "the added layers should train"
    print("the regrown layers train")

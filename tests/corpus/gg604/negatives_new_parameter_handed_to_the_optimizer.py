"""A new `nn.Parameter` after the optimizer was built, handed to it or never trained (GG604
look-alikes, all silent).

As in `parameter_replaced_by_a_new_parameter.py` (the forum thread on setting a parameter
during training, discuss.pytorch.org/t/set-nn-parameter-during-training/178163), the scale
is given a fresh `nn.Parameter` once the optimizer exists; here the new leaf is added with
`add_param_group` (the optimizer then holds it), or built with `requires_grad=False` (a
constant nothing is meant to train). Checked with torch 2.13.0 below.
"""

import torch
from torch import nn


class ScaledLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.lin(x) * self.scale


def added_to_the_optimizer():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.scale = nn.Parameter(torch.full((1,), 2.0))
    optimizer.add_param_group({"params": [model.scale]})
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


def frozen_constant():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.scale = nn.Parameter(torch.full((1,), 2.0), requires_grad=False)
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


if __name__ == "__main__":
    torch.manual_seed(0)
    assert not torch.equal(added_to_the_optimizer().detach(), torch.full((1,), 2.0))
    assert frozen_constant().grad is None
    print("the added scale trains; the frozen one is not meant to")

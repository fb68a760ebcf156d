"""A learnable scale given a new `nn.Parameter` after the optimizer was built (GG604).

A user asked on the PyTorch forum how to set a parameter's value in the middle of training
(discuss.pytorch.org/t/set-nn-parameter-during-training/178163); the answer there is to copy
the value into the existing parameter under `torch.no_grad()`. Binding a fresh
`nn.Parameter(...)` to the attribute instead registers a new leaf the optimizer never saw:
backward fills its `.grad`, `step()` only moves the old tensor, which the model no longer
uses. Nothing raises; the scale stays at the value it was set to (checked with torch 2.13.0
below).

Buggy: the attribute set directly on the model, and by a method of the model (`self.scale`),
both after the optimizer was built from `model.parameters()`.

Look-alikes (all silent): the value copied in place (`copy_` under no_grad, `.data.copy_`),
`load_state_dict` (copies in place too), the optimizer rebuilt after the new parameter, the
parameter registered with `register_parameter` before the optimizer exists, a new
parameter on an attribute the module neither registered nor reads in its forward.
"""

import torch
from torch import nn


class ScaledLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)
        self.scale = nn.Parameter(torch.ones(1))

    def calibrate(self, x):
        self.scale = nn.Parameter(x.abs().max().reshape(1))  # expect: GG604

    def forward(self, x):
        return self.lin(x) * self.scale


def train(model, optimizer):
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def set_on_the_model():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.scale = nn.Parameter(torch.full((1,), 2.0))  # expect: GG604
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


def set_by_a_method():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.calibrate(torch.full((16,), 3.0))
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


def copied_in_place():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.no_grad():
        model.scale.copy_(torch.full((1,), 2.0))
    model.scale.data.copy_(torch.full((1,), 2.0))
    model.load_state_dict(ScaledLinear().state_dict())
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


def rebuilt_after():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.scale = nn.Parameter(torch.full((1,), 2.0))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


def registered_before():
    model = ScaledLinear()
    model.register_parameter("scale", nn.Parameter(torch.full((1,), 2.0)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, optimizer)
    return model.scale


def unused_attribute():
    model = ScaledLinear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.spare = nn.Parameter(torch.zeros(1))
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.scale


if __name__ == "__main__":
    torch.manual_seed(0)
    stuck = set_on_the_model()
    assert torch.equal(stuck.detach(), torch.full((1,), 2.0)), "the new scale trained"
    assert stuck.grad is not None  # it gets gradients, the optimizer never applies them
    calibrated = set_by_a_method()
    assert calibrated.grad is not None and torch.equal(calibrated.detach(), torch.full((1,), 3.0))
    for look_alike in (copied_in_place, rebuilt_after, registered_before, unused_attribute):
        moved = look_alike()
        assert moved.grad is not None and not torch.equal(moved.detach(), torch.ones(1)), (
            look_alike.__name__
        )
    print("the replaced scales never trained; the look-alikes train")

"""A submodule's method gives it a new parameter after the optimizer exists (GG604).

A calibration helper walks into the model (`model.norm.recalibrate(x)`) and the norm layer
re-creates its learnable gain as a fresh `nn.Parameter` sized from the data. The optimizer,
made earlier by a one-line builder (`make_optimizer(model, lr)` returning
`torch.optim.SGD(model.parameters(), ...)`), still holds the old gain: the new one gets
gradients on every step and never changes. The look-alikes calibrate before building the
optimizer, or recalibrate a spare norm layer the forward never runs. Checked with torch
2.13.0 below.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GainNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(1))

    @torch.no_grad()
    def recalibrate(self, x):
        self.gain = nn.Parameter(1.0 / x.std().reshape(1))  # expect: GG604

    def forward(self, x):
        return x * self.gain


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.norm = GainNorm()
        self.spare = GainNorm()  # kept for experiments, never run
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        return self.out(self.norm(self.body(x)))


def make_optimizer(model, lr):
    return torch.optim.SGD(model.parameters(), lr=lr)


def calibrate(model, x):
    model.norm.recalibrate(model.body(x))


def calibrate_spare(model, x):
    model.spare.recalibrate(x)


def stale_gain():
    model = Regressor()
    optimizer = make_optimizer(model, 0.1)
    calibrate(model, torch.randn(32, 4))
    before = model.norm.gain.detach().clone()
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 4)), torch.zeros(8, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return torch.equal(before, model.norm.gain)


def calibrated_first():
    model = Regressor()
    calibrate(model, torch.randn(32, 4))
    optimizer = make_optimizer(model, 0.1)
    before = model.norm.gain.detach().clone()
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 4)), torch.zeros(8, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return torch.equal(before, model.norm.gain)


def spare_recalibrated():
    model = Regressor()
    optimizer = make_optimizer(model, 0.1)
    calibrate_spare(model, torch.randn(32, 4))
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 4)), torch.zeros(8, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    assert stale_gain(), "the stale optimizer moved the new gain"
    assert not calibrated_first()
    spare_recalibrated()
    print("the recalibrated gain never trains with the old optimizer")

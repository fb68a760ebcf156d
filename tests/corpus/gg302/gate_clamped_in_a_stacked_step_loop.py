"""A recurrent forecaster clamps its update gate in place inside its step loop (GG302).

Each step of `forward` computes the update gate with `torch.sigmoid`, which keeps its own
result for the backward pass, and then bounds it with `update.clamp_(0.05, 0.95)`. The
backward finds the kept result changed: "one of the variables needed for gradient
computation has been modified by an inplace operation" (checked with torch 2.13.0 below).
How many steps run is the caller's `horizon`, unknown here; but the steps' outputs are
collected in a list that starts empty and is handed to `torch.stack` after the loop, which
raises on an empty list, so any call that returns ran the loop at least once. Look-alikes:
the out-of-place `clamp`, and an in-place clamp of the gate's pre-activation (a linear
layer keeps its input, not its output).

Modelled on the in-place gate operations of a DCRNN cell, fixed in
https://github.com/Rose-STL-Lab/torchTS/pull/59.
"""

import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.update = nn.Linear(1 + hidden, hidden)
        self.candidate = nn.Linear(1 + hidden, hidden)
        self.head = nn.Linear(hidden, 1)
        self.hidden = hidden

    def forward(self, last, horizon):
        h = last.new_zeros(last.size(0), self.hidden)
        step_in = last
        preds = []
        for _ in range(horizon):
            joint = torch.cat([step_in, h], dim=1)
            update = torch.sigmoid(self.update(joint))
            update.clamp_(0.05, 0.95)  # expect: GG302
            h = update * h + (1 - update) * torch.tanh(self.candidate(joint))
            step_in = self.head(h)
            preds.append(step_in)
        return torch.stack(preds, dim=1)


class ClampedOutOfPlace(Forecaster):
    def forward(self, last, horizon):
        h = last.new_zeros(last.size(0), self.hidden)
        step_in = last
        preds = []
        for _ in range(horizon):
            joint = torch.cat([step_in, h], dim=1)
            update = torch.sigmoid(self.update(joint)).clamp(0.05, 0.95)
            h = update * h + (1 - update) * torch.tanh(self.candidate(joint))
            step_in = self.head(h)
            preds.append(step_in)
        return torch.stack(preds, dim=1)


class ClampedBeforeSigmoid(Forecaster):
    def forward(self, last, horizon):
        h = last.new_zeros(last.size(0), self.hidden)
        step_in = last
        preds = []
        for _ in range(horizon):
            joint = torch.cat([step_in, h], dim=1)
            logits = self.update(joint)
            logits.clamp_(-3.0, 3.0)
            update = torch.sigmoid(logits)
            h = update * h + (1 - update) * torch.tanh(self.candidate(joint))
            step_in = self.head(h)
            preds.append(step_in)
        return torch.stack(preds, dim=1)


def fit(model, horizon):
    series = torch.randn(16, horizon + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(2):
        optimizer.zero_grad()
        pred = model(series[:, :1], horizon).squeeze(-1)
        loss = nn.functional.mse_loss(pred, series[:, 1:])
        loss.backward()
        optimizer.step()


def main():
    torch.manual_seed(0)
    try:
        fit(Forecaster(), 4)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place clamp to fail the backward")
    out_of_place = ClampedOutOfPlace()
    out_of_place(torch.randn(3, 1), 4).pow(2).mean().backward()
    before_sigmoid = ClampedBeforeSigmoid()
    before_sigmoid(torch.randn(3, 1), 4).pow(2).mean().backward()


if __name__ == "__main__":
    main()

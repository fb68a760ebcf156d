"""Rotary tables built in inference mode, unpacked in `__init__` and kept on the module (GG106).

`angle_tables` is decorated with `@torch.inference_mode()`, so the cosine and sine tables it
returns are inference tensors. `__init__` unpacks the pair into two locals and keeps them as
plain attributes (a module cast would not even copy those). In `forward`, `q * self.cos` with
`q` computed by a trainable projection must save the table for the gradient of `q`:
"Inference tensors cannot be saved for backward" (checked with torch 2.13.0 below).

Look-alikes: tables built under `@torch.no_grad()` (normal tensors without history), and
tables cloned in `__init__` (a clone made outside inference mode is a normal tensor).

Modelled on Dao-AILab/flash-attention#299 (a rotary cos/sin cache computed during an
evaluation in inference mode, then reused by training).
"""

import torch
from torch import nn


@torch.inference_mode()
def angle_tables(length, width):
    angles = torch.outer(torch.arange(length).float(), torch.ones(width))
    return angles.cos(), angles.sin()


@torch.no_grad()
def angle_tables_no_grad(length, width):
    angles = torch.outer(torch.arange(length).float(), torch.ones(width))
    return angles.cos(), angles.sin()


class RotaryProjection(nn.Module):
    def __init__(self, width, length):
        super().__init__()
        self.project = nn.Linear(width, width)
        cos, sin = angle_tables(length, width)
        self.cos = cos
        self.sin = sin

    def forward(self, x):
        q = self.project(x)
        return q * self.cos + q.flip(-1) * self.sin  # expect: GG106


class NoGradRotaryProjection(nn.Module):
    def __init__(self, width, length):
        super().__init__()
        self.project = nn.Linear(width, width)
        cos, sin = angle_tables_no_grad(length, width)
        self.cos = cos
        self.sin = sin

    def forward(self, x):
        q = self.project(x)
        return q * self.cos + q.flip(-1) * self.sin


class ClonedRotaryProjection(nn.Module):
    def __init__(self, width, length):
        super().__init__()
        self.project = nn.Linear(width, width)
        cos, sin = angle_tables(length, width)
        self.cos = cos.clone()
        self.sin = sin.clone()

    def forward(self, x):
        q = self.project(x)
        return q * self.cos + q.flip(-1) * self.sin


def main():
    x = torch.randn(5, 4)
    try:
        RotaryProjection(4, 5)(x).sum().backward()
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the inference tables to be refused")
    NoGradRotaryProjection(4, 5)(x).sum().backward()
    ClonedRotaryProjection(4, 5)(x).sum().backward()


if __name__ == "__main__":
    main()

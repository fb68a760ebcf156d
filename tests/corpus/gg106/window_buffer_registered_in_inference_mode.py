"""A framing window built in inference mode and registered as a buffer (GG106).

`analysis_window` runs under `@torch.inference_mode()`, so the Hann window it returns is an
inference tensor. `register_buffer` keeps that very tensor as `self.window`, and no cast or
copy of the module ever replaces it in this script, so `forward` reads it as it was made.
There `frames * self.window`, with `frames` computed by a trainable projection, must keep the
window for the gradient of `frames`: "Inference tensors cannot be saved for backward"
(checked with torch 2.13.0 below).

Look-alikes: a window built under `@torch.no_grad()` (a normal tensor), one cloned before it
is registered (a clone made outside inference mode is normal), an inference table that is
only added (addition saves neither operand), and the inference window used by an evaluation
method under `torch.no_grad()` (nothing is saved).

Modelled on sgl-project/sglang#33470 (buffers filled by a warm-up pass under inference mode,
then refused by later computation that autograd tracks).
"""

import math

import torch
from torch import nn


@torch.inference_mode()
def analysis_window(width):
    steps = torch.arange(width) / width
    return 0.5 - 0.5 * torch.cos(2 * math.pi * steps)


@torch.no_grad()
def analysis_window_no_grad(width):
    steps = torch.arange(width) / width
    return 0.5 - 0.5 * torch.cos(2 * math.pi * steps)


class FramedEncoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.project = nn.Linear(width, width)
        self.register_buffer("window", analysis_window(width), persistent=False)

    def forward(self, x):
        frames = self.project(x)
        return (frames * self.window).sum(-1)  # expect: GG106

    def score(self, x):
        with torch.no_grad():
            return (self.project(x) * self.window).sum(-1)


class NoGradFramedEncoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.project = nn.Linear(width, width)
        self.register_buffer("window", analysis_window_no_grad(width), persistent=False)

    def forward(self, x):
        frames = self.project(x)
        return (frames * self.window).sum(-1)


class ClonedFramedEncoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.project = nn.Linear(width, width)
        self.register_buffer("window", analysis_window(width).clone(), persistent=False)

    def forward(self, x):
        frames = self.project(x)
        return (frames * self.window).sum(-1)


class OffsetEncoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.project = nn.Linear(width, width)
        self.register_buffer("offset", analysis_window(width), persistent=False)

    def forward(self, x):
        return (self.project(x) + self.offset).sum(-1)


def main():
    x = torch.randn(6, 8)
    encoder = FramedEncoder(8)
    print(encoder.score(x).shape)
    try:
        encoder(x).pow(2).mean().backward()
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the inference window to be refused")
    for model in (NoGradFramedEncoder(8), ClonedFramedEncoder(8), OffsetEncoder(8)):
        model(x).pow(2).mean().backward()
        assert model.project.weight.grad is not None


if __name__ == "__main__":
    main()

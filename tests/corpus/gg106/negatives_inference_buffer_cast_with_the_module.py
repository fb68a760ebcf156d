"""Look-alike of GG106: an inference-mode window kept as a buffer, then the module is cast.

The window comes from an `@torch.inference_mode()` helper and is registered as a buffer, as
in `window_buffer_registered_in_inference_mode.py`. But the script casts the model to
float64 before training: `Module._apply` replaces every buffer by the cast's result, a copy
made outside inference mode, so the buffer `forward` reads is a normal tensor and training
runs (checked with torch 2.13.0 below). A static reading cannot tell a cast that copies
(another dtype or device) from one that returns the buffer itself, so nothing is reported
in a file that casts a module.

Modelled on sgl-project/sglang#33470 (the same warm-up buffers, where the cast decides).
"""

import math

import torch
from torch import nn


@torch.inference_mode()
def analysis_window(width):
    steps = torch.arange(width) / width
    return 0.5 - 0.5 * torch.cos(2 * math.pi * steps)


class FramedEncoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.project = nn.Linear(width, width)
        self.register_buffer("window", analysis_window(width), persistent=False)

    def forward(self, x):
        frames = self.project(x)
        return (frames * self.window).sum(-1)


def main():
    encoder = FramedEncoder(8).double()
    assert not encoder.window.is_inference()
    x = torch.randn(6, 8, dtype=torch.float64)
    encoder(x).pow(2).mean().backward()
    assert encoder.project.weight.grad is not None


if __name__ == "__main__":
    main()

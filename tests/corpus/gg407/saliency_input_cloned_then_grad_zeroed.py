"""A saliency loop clears the input's gradient before its first backward (GG407).

Each SmoothGrad sample makes a new input leaf with `noisy.clone().requires_grad_()`. A new
tensor's `.grad` is None until a backward fills it, so `x.grad.zero_()` before the backward
raises "'NoneType' object has no attribute 'zero_'" (checked with torch 2.13.0 below). The
look-alike clears it after reading it.

Modelled on a SmoothGrad implementation of the team's second blind corpus (the gradient
"reset" copied from a training loop into the per-sample loop).
"""

import torch
from torch import nn


def smoothgrad(model, image, samples=3, sigma=0.1):
    total = torch.zeros_like(image)
    for _ in range(samples):
        noisy = image + sigma * torch.randn_like(image)
        x = noisy.clone().requires_grad_()
        x.grad.zero_()  # expect: GG407
        model(x).sum().backward()
        total += x.grad
    return total / samples


def smoothgrad_fixed(model, image, samples=3, sigma=0.1):
    total = torch.zeros_like(image)
    for _ in range(samples):
        noisy = image + sigma * torch.randn_like(image)
        x = noisy.clone().requires_grad_()
        model(x).sum().backward()
        total += x.grad
        x.grad.zero_()
    return total / samples


if __name__ == "__main__":
    model = nn.Linear(4, 2)
    image = torch.randn(1, 4)
    try:
        smoothgrad(model, image)
    except AttributeError as error:
        assert "zero_" in str(error)
    else:
        raise AssertionError("expected the missing gradient to fail")
    smoothgrad_fixed(model, image)

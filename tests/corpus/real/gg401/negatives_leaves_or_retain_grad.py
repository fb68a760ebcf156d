"""The fixed versions: detach before re-flagging, retain_grad() on computed tensors.

Sources (rewritten in our own words, structure kept):
* https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2 - the maintainer's fix:
  `.detach()` the updated image before setting requires_grad.
* https://github.com/microsoft/tensorwatch/issues/25 - a fresh leaf per noisy sample.
* https://github.com/pytorch/pytorch/issues/3890 - `s.retain_grad()` instead of the flag.
"""

import torch
from torch import nn


def deepfool_linear(image, label, steps):
    model = nn.Linear(4, 3)
    image = image.clone()
    for _ in range(steps):
        image.requires_grad = True
        fs = model(image)[0]
        grad = torch.autograd.grad(fs[label], image)[0]
        image = (image + 0.02 * grad / grad.norm()).detach()
    return image


def smooth_grad(model, inp, ind, nsamples, stdev):
    total_gradients = 0
    for _ in range(nsamples):
        noisy_inp = (inp + torch.randn_like(inp) * stdev).detach()
        noisy_inp.requires_grad = True
        output = model(noisy_inp)
        grad_out = torch.zeros_like(output)
        grad_out[:, ind] = 1
        output.backward(grad_out)
        total_gradients = total_gradients + noisy_inp.grad
    return total_gradients / nsamples


def sigmoid_gradient():
    x = torch.zeros(3, 3, requires_grad=True)
    s = torch.sigmoid(x)
    s.retain_grad()
    total = torch.sum(s)
    total.backward()
    return s.grad


def sigmoid_gradient_on_copy():
    x = torch.zeros(3, 3, requires_grad=True)
    s = torch.sigmoid(x).detach()
    s.requires_grad = True
    total = torch.sum(s)
    total.backward()
    return s.grad


def no_grad_input():
    x = torch.zeros(3, 3)
    s = torch.sigmoid(x)
    s.requires_grad = True
    torch.sum(s * 2).backward()
    return s.grad

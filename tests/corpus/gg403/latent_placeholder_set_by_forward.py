"""A model marks the code it keeps as not set yet (`self.code = None` in `__init__`),
`forward` keeps the encoder's output there, and a monitor reads `.grad` of it after
backward (GG403).

A small autoencoder records its bottleneck so that a logger can report how strongly the
loss pulls on it. The bottleneck is the output of a linear layer: not a leaf, and nothing
asks autograd to keep its gradient, so `.grad` is None and `.norm()` raises AttributeError
(checked with torch 2.13.0 below). The None written in `__init__` changes nothing: a reader
either finds None (and `None.grad` raises too) or what `forward` kept. Modelled on the
situation torch's own warning describes (it points to
https://github.com/pytorch/pytorch/pull/30531): `.grad` of a non-leaf kept for inspection.

The look-alikes keep None until a method stores a leaf (a noise tensor made with
`requires_grad=True`, whose `.grad` backward fills), and an attribute that two methods
store (so which tensor a reader finds is not known).
"""

import torch
from torch import nn


class Bottleneck(nn.Module):
    def __init__(self, width, code_size):
        super().__init__()
        self.encode = nn.Linear(width, code_size)
        self.decode = nn.Linear(code_size, width)
        self.code = None

    def forward(self, x):
        self.code = self.encode(x)
        return self.decode(torch.relu(self.code))


class CodeLogger:
    def __init__(self, model):
        self.model = model

    def pull_on_code(self):
        return self.model.code.grad.norm().item()  # expect: GG403


class NoisyInput:
    """Learns an additive input perturbation (a leaf made by a method, None until then)."""

    def __init__(self, model):
        self.model = model
        self.noise = None

    def start(self, shape):
        self.noise = torch.zeros(shape, requires_grad=True)

    def step(self, x):
        loss = self.model(x + self.noise).pow(2).mean()
        loss.backward()
        return self.noise.grad.abs().mean()


class Probe:
    """Two methods store `self.seen`: a leaf in one, a computed tensor in the other."""

    def __init__(self, model):
        self.model = model
        self.seen = None

    def watch_input(self, x):
        self.seen = x.clone().requires_grad_()

    def watch_output(self, x):
        self.seen = self.model(x)

    def strength(self):
        return self.seen.grad


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Bottleneck(6, 2)
    batch = torch.randn(5, 6)
    noisy = NoisyInput(model)
    noisy.start((5, 6))
    print("noise grad", noisy.step(batch))
    probe = Probe(model)
    probe.watch_input(batch)
    model(probe.seen).sum().backward()
    print("input grad", probe.strength().shape)
    model.zero_grad()
    model(batch).pow(2).mean().backward()
    try:
        print(CodeLogger(model).pull_on_code())
    except AttributeError as error:
        print(f"BUGGY: {error}")

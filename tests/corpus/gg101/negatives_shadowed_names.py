"""`torch` and `no_grad` that are not PyTorch's: no GG101."""

import contextlib

import torch
from torch import nn

model = nn.Linear(6, 1)
DATA = torch.randn(8, 6)


def no_grad():
    """A project-local stand-in (e.g. for profiling); it does not touch autograd."""
    return contextlib.nullcontext()


def with_local_no_grad():
    with no_grad():
        loss = model(DATA).pow(2).mean()
    loss.backward()


def torch_as_parameter(torch, steps=3):
    """`torch` here is whatever the caller passes (a mock in the unit tests)."""
    for _ in range(steps):
        with torch.no_grad():
            loss = model(DATA).pow(2).mean()
        loss.backward()


class Runner:
    """`self.torch` is an injected backend, not the torch module."""

    def __init__(self, backend):
        self.torch = backend

    def run(self):
        with self.torch.no_grad():
            loss = model(DATA).abs().mean()
        loss.backward()


def shadowed_by_local_assignment(fake_backend):
    torch = fake_backend
    with torch.no_grad():
        loss = model(DATA).sum()
    loss.backward()

"""A module-level `torch` rebound to a fake: its `no_grad` is not autograd's. No GG101."""

import contextlib

import torch as pt
from torch import nn


class FakeTorch:
    """Records which blocks ran, for a dry-run mode."""

    def __init__(self):
        self.blocks = []

    @contextlib.contextmanager
    def no_grad(self):
        self.blocks.append("no_grad")
        yield

    def set_grad_enabled(self, mode):
        self.blocks.append(f"set_grad_enabled({mode})")


torch = FakeTorch()
model = nn.Linear(6, 1)
optimizer = pt.optim.SGD(model.parameters(), lr=0.1)

for step in range(3):
    x = pt.randn(8, 6)
    with torch.no_grad():
        loss = model(x).pow(2).mean()
    torch.set_grad_enabled(False)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(torch.blocks)

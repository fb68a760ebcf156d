"""A gated residual block: the gate is a sigmoid and the block adds the skip connection
into the gated output with `out += residual`... after multiplying, which is fine, but a
second variant adds the bias correction directly into the sigmoid output (`gate += 0.1`)
before using it, and `trainer.train_batch(...)` then fails in backward with "modified by
an inplace operation [...] output 0 of SigmoidBackward0". The trainer object holds the
model and optimizer and is driven batch by batch.

Source (rewritten in our own words, structure kept): https://github.com/microsoft/unilm/pull/999
(an in-place `x += x_conv` inside a block, fixed with an out-of-place add) and
https://github.com/idiap/fast-transformers/pull/10 (in-place updates replaced by
out-of-place ones to stop the gradient error).
"""

import torch
from torch import nn


class GatedBlock(nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.value = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        gate = torch.sigmoid(self.gate(x))
        gate += 0.1  # expect: GG302
        out = self.value(x) * gate
        out += x
        return out


class Trainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.criterion = nn.MSELoss()

    def train_batch(self, x, y):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    x, y = torch.randn(4, 6), torch.randn(4, 6)
    try:
        Trainer(GatedBlock()).train_batch(x, y)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")

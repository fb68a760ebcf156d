"""A coordinate head's loss is computed from argmax bins decoded with config constants (GG108).

`decode(logits, cfg.bins)` takes the argmax bin of each coordinate, clamps the overflow bin
with an item store (`coor[coor == bins] = 0`) and rescales it to [-1, 1] with the bin count
from a config class; the L1 loss on that, weighted by a batch mask and averaged over its
count, has no history: argmax has no gradient, so backward() raises "element 0 of tensors
does not require grad" (checked with torch 2.13.0 below). The look-alike regresses the
expected coordinate under the softmax, which is differentiable.

Modelled on a coordinate-classification head of the team's second blind corpus.
"""

import torch
from torch import nn


class cfg:
    bins = 8
    steps = 2


class CoordHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, cfg.bins)

    def forward(self, x):
        return self.fc(x)


def decode(logits, bins):
    coor = torch.argmax(logits, dim=1)  # expect: GG108
    coor[coor == bins] = 0
    return 2.0 * coor.float() / (bins - 1) - 1.0


def expected(logits, bins):
    centres = torch.linspace(-1.0, 1.0, bins)
    return (torch.softmax(logits, dim=1) * centres).sum(dim=1)


def train(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, target, mask in batches:
        pred = decode(model(x), cfg.bins)
        loss = (torch.abs(pred - target) * mask).sum() / mask.sum().clamp(min=1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_expected(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, target, mask in batches:
        pred = expected(model(x), cfg.bins)
        loss = (torch.abs(pred - target) * mask).sum() / mask.sum().clamp(min=1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    batches = [(torch.randn(4, 5), torch.rand(4), torch.ones(4)) for _ in range(cfg.steps)]
    try:
        train(CoordHead(), batches)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("expected the argmax loss to fail")
    train_expected(CoordHead(), batches)


if __name__ == "__main__":
    main()

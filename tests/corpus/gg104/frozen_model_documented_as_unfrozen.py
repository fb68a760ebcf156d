"""A whole model frozen for fine-tuning, in a file whose documentation talks of unfreezing.

Modelled on https://github.com/cfzd/Ultra-Fast-Lane-Detection/issues/282: when a
fine-tuning checkpoint is given, the training script loads it and then sets
`param.requires_grad = False` for every parameter of the model it trains, so the first
backward() fails with "element 0 of tensors does not require grad". This file's docs and
comments say, as real ones do, that a layer may later be unfrozen with
`requires_grad=True`: text in docstrings and comments changes no parameter, so the model
is still certainly frozen. The look-alike freezes only the backbone.

Usage notes (prose, not code): to train the head only, keep requires_grad=True on
`model.head`; call `nn.Parameter(...)` in your own subclass to add trainable weights.
"""

import torch
from torch import nn


class LaneNet(nn.Module):
    """Backbone and a row-anchor head; every parameter has requires_grad=True when built."""

    def __init__(self, griding=8, rows=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.head = nn.Linear(8 * 2 * 2, griding * rows)

    def forward(self, images):
        return self.head(self.backbone(images).flatten(1))


def finetune(steps=2):
    model = LaneNet()
    for param in model.parameters():  # expect: GG104
        param.requires_grad = False  # to unfreeze later: param.requires_grad = True
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        images, target = torch.randn(2, 3, 8, 8), torch.randn(2, 32)
        loss = nn.functional.mse_loss(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def finetune_head(steps=2):
    model = LaneNet()
    for param in model.backbone.parameters():
        param.requires_grad = False
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.01)
    for _ in range(steps):
        images, target = torch.randn(2, 3, 8, 8), torch.randn(2, 32)
        loss = nn.functional.mse_loss(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    try:
        finetune()
        raise SystemExit("the frozen model trained")
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    finetune_head()
    print("ok")

"""Modules frozen whole, then partly turned back on by a loop over their parameter names.

Each loop below does unfreeze some parameter the model has (or may have), so every backward
finds a graph. The on-then-off loop is the one discussed in
https://github.com/ultralytics/yolov5/issues/1213; unfreezing a head by a name prefix is how
transfer-learning scripts commonly train the new layers only.
"""

import os

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(6, 12)
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


def unfreeze_matching(model, keys):
    for name, param in model.named_parameters():
        if any(key in name for key in keys):
            param.requires_grad_(True)


def head_unfrozen_by_prefix():
    model = Classifier()
    model.requires_grad_(False)
    for name, param in model.named_parameters():
        if name.startswith(("head.", "classifier.")):
            param.requires_grad = True
    model(torch.randn(4, 6)).sum().backward()


def only_the_backbone_turned_off_again():
    model = Classifier()
    for name, param in model.named_parameters():
        param.requires_grad = True
        if name.startswith("backbone."):
            param.requires_grad = False
    model(torch.randn(4, 6)).sum().backward()


def unfrozen_by_a_helper():
    model = Classifier()
    model.requires_grad_(False)
    unfreeze_matching(model, ["head"])
    model(torch.randn(4, 6)).sum().backward()


def names_from_the_environment():
    model = Classifier()
    model.requires_grad_(False)
    wanted = os.environ.get("TRAIN_LAYERS", "head")
    for name, param in model.named_parameters():
        if name.startswith(wanted):
            param.requires_grad = True
    model(torch.randn(4, 6)).sum().backward()


def sequential_named_by_index():
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    model.requires_grad_(False)
    for name, param in model.named_parameters():
        if name.startswith("2."):
            param.requires_grad = True
    model(torch.randn(4, 6)).sum().backward()


if __name__ == "__main__":
    head_unfrozen_by_prefix()
    only_the_backbone_turned_off_again()
    unfrozen_by_a_helper()
    names_from_the_environment()
    sequential_named_by_index()
    print("all trained")

"""Freezing loops over `named_parameters()` whose name tests leave some parameters training.

Each model freezes its parameters by name, as transfer-learning scripts do, but some names
fail the test (or the test cannot be told from here): the parameters they name keep
requiring grad and every backward() finds a graph. The shape of
https://github.com/JDAI-CV/fast-reid/issues/178 (which layers to freeze, chosen by name).
"""

import sys

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x))).mean((2, 3))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.backbone(x))


images = torch.randn(2, 3, 8, 8)

# The key matches the head's names: the head trains.
keep = {"key": "head"}
model = Classifier()
for name, param in model.named_parameters():
    if keep["key"] not in name:
        param.requires_grad = False
model(images).sum().backward()

# Only the backbone's names start with "backbone".
model = Classifier()
for name, param in model.named_parameters():
    if name.startswith("backbone"):
        param.requires_grad = False
model(images).sum().backward()

# `any` over prefixes that leave the head out.
model = Classifier()
for name, param in model.named_parameters():
    if any(name.startswith(prefix) for prefix in ("backbone.conv", "backbone.bn")):
        param.requires_grad_(False)
model(images).sum().backward()

# Biases only: every weight still trains.
model = Classifier()
for name, param in model.named_parameters():
    if name.endswith("bias"):
        param.requires_grad = False
model(images).sum().backward()

# The key comes from the command line: not known here.
model = Classifier()
key = sys.argv[1] if len(sys.argv) > 1 else "head"
for name, param in model.named_parameters():
    if key not in name:
        param.requires_grad = False
model(images).sum().backward()

# A `continue` skips the freeze for the head.
model = Classifier()
for name, param in model.named_parameters():
    if "head" in name:
        continue
    param.requires_grad = False
model(images).sum().backward()

# The key list is changed through another name before the loop: the head's key is in it.
keys = ["Head"]
alias = keys
alias.append("head")
model = Classifier()
for name, param in model.named_parameters():
    if not any(k in name for k in keys):
        param.requires_grad = False
model(images).sum().backward()


def use_head_key(settings):
    settings["key"] = "head"


# A helper changes the settings dict: its key is the head's.
options = {"key": "Head"}
use_head_key(options)
model = Classifier()
for name, param in model.named_parameters():
    if options["key"] not in name:
        param.requires_grad = False
model(images).sum().backward()

if __name__ == "__main__":
    print("all trained")

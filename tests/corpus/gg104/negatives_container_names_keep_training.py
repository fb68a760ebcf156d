"""Freezing by name through `nn.Sequential` and `nn.ModuleList` children that some name passes.

Containers name their modules by index (`blocks.0.weight`). Each loop below leaves some
parameter training, or names it in a way the index hides: a key that does match
(`"prompt"`), a test on an index that exists (`"head.2"`), a test that needs the index
(`"blocks.2."`, `"1"`), a container naming its modules by the keys of an `OrderedDict`, and a
list that gets another block after it was built. Every backward() finds a graph. The shape
of https://github.com/JDAI-CV/fast-reid/issues/178 (layers frozen or trained by name).
"""

from collections import OrderedDict

import torch
from torch import nn


class Prompt(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))

    def forward(self, h):
        return h + self.mix(h)


class Tower(nn.Module):
    def __init__(self, width=8, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
        self.prompt = Prompt(width)
        self.head = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 2))

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return self.head(self.prompt(x))


class Keyed(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.body = nn.Sequential(
            OrderedDict([("proj", nn.Linear(width, width)), ("adapter", nn.Linear(width, 2))])
        )

    def forward(self, x):
        return self.body(x)


class Grown(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width)])
        self.layers.append(Prompt(width))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


x = torch.randn(4, 8)

# The key matches the attribute the block is stored at: `prompt.mix.0.weight` trains.
matched = Tower()
for name, p in matched.named_parameters():
    if "prompt" not in name:
        p.requires_grad = False
matched(x).sum().backward()

# `head.2.weight` exists: the last layer of the head trains.
last = Tower()
for name, p in last.named_parameters():
    if "head.2" not in name:
        p.requires_grad = False
last(x).sum().backward()

# Which indices the comprehension's list has is not known here: `blocks.2.` may be one.
third = Tower()
for name, p in third.named_parameters():
    if not name.startswith("blocks.2."):
        p.requires_grad = False
third(x).sum().backward()

# A digit may be part of an index: `blocks.1.weight` holds "1".
digit = Tower()
for name, p in digit.named_parameters():
    if "1" not in name:
        p.requires_grad = False
digit(x).sum().backward()

# The OrderedDict's keys name the modules: `body.adapter.weight` trains.
keyed = Keyed()
for name, p in keyed.named_parameters():
    if "adapter" not in name:
        p.requires_grad = False
keyed(x).sum().backward()

# A block appended after the list was built: `layers.1.mix.0.weight` trains.
grown = Grown()
for name, p in grown.named_parameters():
    if "mix" not in name:
        p.requires_grad = False
grown(x).sum().backward()

if __name__ == "__main__":
    print("all trained")

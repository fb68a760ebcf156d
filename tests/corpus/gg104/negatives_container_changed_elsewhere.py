"""Freezing by name after a container got a trainable block through another way in.

`nn.Sequential` and `nn.ModuleList` name their modules by index, but the modules they hold
may change after they are built: here through an item of an outer container (`outer[1][0] =
...`), and through the name the container was built under before a model stored it. The
loops' tests pass the new blocks' names (`...mix.0.weight`), so those parameters keep
requiring grad and every backward() finds a graph. Swapping layers of a pretrained model
before freezing the rest by name is the shape of
https://github.com/JDAI-CV/fast-reid/issues/178 (layers frozen or trained by name).
"""

import torch
from torch import nn


class Prompt(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))

    def forward(self, h):
        return h + self.mix(h)


class Wrapper(nn.Module):
    def __init__(self, body, width=8):
        super().__init__()
        self.body = body
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        return self.head(self.body(x))


x = torch.randn(4, 8)

# The inner container's first layer is replaced through the outer one.
outer = nn.Sequential(nn.Linear(8, 8), nn.Sequential(nn.Linear(8, 8), nn.ReLU()))
outer[1][0] = Prompt(8)
for name, p in outer.named_parameters():
    if "mix" not in name:
        p.requires_grad = False
outer(x).sum().backward()

# The container handed to the wrapper grows under the name it was built with.
trunk = nn.Sequential(nn.Linear(8, 8))
wrapped = Wrapper(trunk)
trunk.append(Prompt(8))
for name, p in wrapped.named_parameters():
    if "mix" not in name:
        p.requires_grad = False
wrapped(x).sum().backward()

if __name__ == "__main__":
    print("all trained")

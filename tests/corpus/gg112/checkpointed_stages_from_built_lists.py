"""Reentrant checkpoints over stages kept in a list built step by step, or listed by a method.

`PyramidNet.__init__` fills a local list with one block per width (`levels.append(...)`) and
keeps `nn.ModuleList(levels)`: the `append` changes the local list, never the ModuleList
(which copied the blocks), so every iteration of `for level in self.levels` in `forward`
binds one of those trainable blocks. `TrunkNet.forward` walks the stages its `trunk()` method
lists (`[self.entry, self.middle, self.exit]`), modules of different kinds, all trainable.
Both models checkpoint the first stage on the raw batch, which does not require grad, so the
reentrant checkpoint's output has no history and no stage gets a gradient (checked with
torch 2.13.0: their `.grad` stays None while the head trains).

Silent look-alikes: the same loops with `use_reentrant=False`; a list aliased by an
attribute and changed later (`self.extra = extras; extras[0] = nn.Identity()`), whose
blocks the loop cannot know; a listing method whose stages are all parameter-free activations; and an
input that requires grad.
Modelled on the reports that a model whose only input does not require grad trains nothing
inside its checkpoints (https://github.com/Lyken17/pytorch-memonger/issues/4), written anew
for this corpus.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Level(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.proj = nn.Linear(cin, cout)
        self.norm = nn.LayerNorm(cout)

    def forward(self, x):
        return torch.relu(self.norm(self.proj(x)))


class PyramidNet(nn.Module):
    def __init__(self, widths, classes, reentrant=True):
        super().__init__()
        levels, width = [], 12
        for out in widths:
            levels.append(Level(width, out))
            width = out
        self.levels = nn.ModuleList(levels)
        self.head = nn.Linear(width, classes)
        self.reentrant = reentrant

    def forward(self, x):
        for level in self.levels:
            if self.training and self.reentrant:
                x = checkpoint(level, x, use_reentrant=True)  # expect: GG112
            else:
                x = level(x)
        return self.head(x)


class TrunkNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.entry = nn.Sequential(nn.Linear(12, 24), nn.GELU())
        self.middle = Level(24, 24)
        self.exit = nn.Linear(24, 16)
        self.head = nn.Linear(16, classes)

    def trunk(self):
        return [self.entry, self.middle, self.exit]

    def forward(self, x):
        for stage in self.trunk():
            x = checkpoint(stage, x, use_reentrant=True)  # expect: GG112
        return self.head(x)


class SafeTrunkNet(TrunkNet):
    def forward(self, x):
        for stage in self.trunk():
            x = checkpoint(stage, x, use_reentrant=False)
        return self.head(x)


class GrownNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        extras = [Level(12, 12)]
        self.extra = extras  # the attribute holds the very list changed below
        extras[0] = nn.Identity()  # nothing trainable is left in it
        self.head = nn.Linear(12, classes)

    def forward(self, x):
        for block in self.extra:
            x = checkpoint(block, x, use_reentrant=True)
        return self.head(x)


class ActivationsNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.first = nn.GELU()
        self.second = nn.Tanh()
        self.head = nn.Linear(12, classes)

    def activations(self):
        return [self.first, self.second]

    def forward(self, x):
        for act in self.activations():
            x = checkpoint(act, x, use_reentrant=True)
        return self.head(x)


def train(model, steps=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for _ in range(steps):
        batch = torch.randn(4, 12)
        labels = torch.randint(0, 3, (4,))
        loss = nn.functional.cross_entropy(model(batch), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_on_leaf_inputs(model, steps=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        batch = torch.randn(4, 12, requires_grad=True)
        loss = model(batch).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train(PyramidNet((16, 16), 3))
    train(TrunkNet(3))
    train(SafeTrunkNet(3))
    train(GrownNet(3))
    train(ActivationsNet(3))
    train_on_leaf_inputs(PyramidNet((16, 16), 3, reentrant=False))

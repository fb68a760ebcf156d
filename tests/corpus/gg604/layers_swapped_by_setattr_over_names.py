"""Layers swapped by `setattr` over a tuple of their names after the optimizer exists (GG604).

A compression step rebuilds named layers of a model as fresh `nn.Linear` modules,
`setattr(model, name, new)` for every name of a literal tuple, after the optimizer was
built on `model.parameters()`. Python runs the loop body once per name and each run
reaches the call, so every layer named is replaced: the optimizer keeps the old tensors
and the rebuilt layers never move. The look-alikes build the optimizer again after the
swap, skip some names (which layers change is then a matter of values), swap a layer the
forward never runs, or set names only known at run time (`named_children()`). Checked with
torch 2.13.0 below.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(6, 12)
        self.outer = nn.Linear(12, 3)
        self.side = nn.Linear(6, 1)  # a probe the forward never runs

    def forward(self, x):
        return self.outer(torch.tanh(self.inner(x)))


def shrink(model, names):
    for name in names:
        old = getattr(model, name)
        new = nn.Linear(old.in_features, old.out_features)
        with torch.no_grad():
            new.weight.copy_(old.weight * 0.5)
            new.bias.copy_(old.bias)
        setattr(model, name, new)
    return model


def rebuild(model):
    for name in ("inner", "outer"):
        old = getattr(model, name)
        setattr(model, name, nn.Linear(old.in_features, old.out_features))  # expect: GG604
    return model


def stale_after_rebuild():
    model = Mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model = rebuild(model)
    before = model.inner.weight.detach().clone()
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 6)), torch.zeros(8, 3))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return torch.equal(before, model.inner.weight)


def rebuilt_then_new_optimizer():
    model = Mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 6)), torch.zeros(8, 3))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model = rebuild(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.inner.weight.detach().clone()
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 6)), torch.zeros(8, 3))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return torch.equal(before, model.inner.weight)


def probe_swapped():
    model = Mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for name in ("side",):
        setattr(model, name, nn.Linear(6, 1))
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 6)), torch.zeros(8, 3))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def some_names_skipped(skip):
    model = Mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for name in ("inner", "outer"):
        if name == skip:
            continue
        setattr(model, name, nn.Linear(getattr(model, name).in_features, 3 if name == "outer" else 12))
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 6)), torch.zeros(8, 3))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def every_child(model):
    for name, child in model.named_children():
        if isinstance(child, nn.Linear):
            setattr(model, name, nn.Linear(child.in_features, child.out_features))


def children_swapped():
    model = Mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    every_child(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = F.mse_loss(model(torch.randn(8, 6)), torch.zeros(8, 3))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    assert stale_after_rebuild(), "the stale optimizer moved the rebuilt layer"
    assert not rebuilt_then_new_optimizer()
    probe_swapped()
    some_names_skipped("inner")
    children_swapped()
    shrink(Mlp(), ("inner",))
    print("rebuilt layers never train with the old optimizer")

"""Weights written in place through a path of containers, with grad on (GG301).

The write target is not a name: `model.blocks[i].out.weight[:, j]` goes through an
nn.ModuleList of one class, `stack[0].weight[0, 0]` through an nn.Sequential of layers
written out, and `params[0][1]` through a plain list of leaves. Each path only reads
attributes and items, so the analysis evaluates it as it would a name and finds a leaf
that requires grad. Modelled on https://github.com/Hunter-DDM/knowledge-neurons/issues/14
(the edit written on one line, without naming the layer first).
"""

import torch
from torch import nn


class Projection(nn.Module):
    def __init__(self, inner, width):
        super().__init__()
        self.dense = nn.Linear(inner, width)

    def forward(self, x):
        return self.dense(x)


class Block(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.up = nn.Linear(width, inner)
        self.out = Projection(inner, width)

    def forward(self, x):
        return x + self.out(torch.relu(self.up(x)))


class Stack(nn.Module):
    def __init__(self, width=8, inner=16, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, inner) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def boost_neurons(model, chosen, direction):
    for layer, column in chosen:
        model.blocks[layer].out.dense.weight[:, column] += direction  # expect: GG301


def pin_first_weight():
    stack = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
    stack[0].weight[0, 0] = 1.0  # expect: GG301
    return stack


def zero_last_bias():
    stack = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
    stack[-1].bias[0] = 0.0  # expect: GG301
    return stack


def reset_first_entry():
    params = [torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)]
    params[0][1] = 0.0  # expect: GG301
    return params


def expect_leaf_error(error: RuntimeError) -> None:
    assert "leaf Variable that requires grad" in str(error), error


if __name__ == "__main__":
    try:
        boost_neurons(Stack(), [(0, 3), (1, 5)], torch.ones(8))
    except RuntimeError as error:
        expect_leaf_error(error)
    else:
        raise SystemExit("expected a RuntimeError")
    for attempt in (pin_first_weight, zero_last_bias, reset_first_entry):
        try:
            attempt()
        except RuntimeError as error:
            expect_leaf_error(error)
        else:
            raise SystemExit("expected a RuntimeError")

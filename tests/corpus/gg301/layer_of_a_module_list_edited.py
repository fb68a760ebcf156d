"""A weight of one layer in an nn.ModuleList edited in place with grad on (GG301).

Modelled on https://github.com/Hunter-DDM/knowledge-neurons/issues/14: a script editing
"knowledge neurons" scaled columns of a feed-forward weight of one transformer layer,
reached as `model.encoder.layers[i]`, outside `torch.no_grad()`, and failed with "a leaf
Variable that requires grad is being used in an in-place operation". The layers are built
by a comprehension of one class into an nn.ModuleList that no code changes, so any index
of it is a layer of that class, whose `ffn` weight is a leaf parameter. The look-alike
makes the same edit under no_grad.
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.ffn = nn.Linear(dim, hidden)
        self.proj = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.proj(torch.relu(self.ffn(x)))


class Encoder(nn.Module):
    def __init__(self, depth=3, dim=8, hidden=16):
        super().__init__()
        self.layers = nn.ModuleList([Block(dim, hidden) for _ in range(depth)])

    def forward(self, x):
        for block in self.layers:
            x = block(x)
        return x


def amplify_neurons(model, layer, neurons, factor=2.0):
    ffn = model.layers[layer].ffn
    ffn.weight[neurons, :] *= factor  # expect: GG301


def amplify_neurons_safely(model, layer, neurons, factor=2.0):
    with torch.no_grad():
        model.layers[layer].ffn.weight[neurons, :] *= factor


if __name__ == "__main__":
    encoder = Encoder()
    amplify_neurons_safely(encoder, 1, [0, 3])
    try:
        amplify_neurons(encoder, 1, [0, 3])
    except RuntimeError as error:
        print("raises:", error)
    else:
        raise SystemExit("expected a RuntimeError")

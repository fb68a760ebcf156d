"""A model whose layers are chosen in a loop, trained on targets made with argmax: no GG108.

Hyperparameter-search examples (optuna-examples' pytorch/pytorch_simple.py builds its
network this way: https://github.com/optuna/optuna-examples/blob/main/pytorch/pytorch_simple.py)
append a linear layer, an activation and a dropout per searched layer to a list, then one
output layer, and unpack the list into `nn.Sequential`. The list holds layers with
parameters and layers without: the model's output has history (its linear layers train), so
a cross-entropy loss against integer targets made with `argmax` backpropagates. The join of
the list's layers must not claim "no parameters" because one of them (ReLU) has none.
"""

import torch
import torch.nn.functional as F
from torch import nn


def build(widths, dropouts, inputs=10, classes=3):
    layers = []
    features = inputs
    for width, rate in zip(widths, dropouts):
        layers.append(nn.Linear(features, width))
        layers.append(nn.ReLU())
        layers.append(nn.Dropout(rate))
        features = width
    layers.append(nn.Linear(features, classes))
    return nn.Sequential(*layers)


def activations_only(depth):
    blocks = []
    for _ in range(depth):
        blocks.append(nn.Tanh())
    blocks.append(nn.Linear(10, 3))
    return nn.Sequential(*blocks)


def train(model, steps=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 10)
    y = x[:, :3].argmax(1)  # integer targets: no history, none needed
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    train(build([16, 8], [0.2, 0.3]))
    train(activations_only(2))
    print("OK")

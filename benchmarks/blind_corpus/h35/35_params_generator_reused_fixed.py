"""Transfer-learning setup that freezes layers, logs and builds the optimizer.

Modelled on: https://theneuralbase.com/pytorch/learn/beginner/model-parameters-accessing-weights/

The page stresses that model.parameters() is a generator (an iterator)
that the optimizer consumes, and shows filtering it for the unfrozen
parameters. Here the filtered generator is stored once, iterated by the
logging helper that counts trainable weights, and then handed to the
optimizer, which receives an already-exhausted iterator and raises
"optimizer got an empty parameter list".

Fixed version: the trainable parameters are materialised in a list.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def freeze(module):
    for p in module.parameters():
        p.requires_grad = False


def count_trainable(params):
    return sum(p.numel() for p in params)


def build_optimizer(name, params, lr):
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    return torch.optim.Adam(params, lr=lr)


def setup(args):
    model = SimpleNet()
    freeze(model.fc1)
    trainable = [p for p in model.parameters() if p.requires_grad]
    print(f"trainable parameters: {count_trainable(trainable)}")
    optimizer = build_optimizer(args.optim, trainable, args.lr)
    return model, optimizer


def train(model, optimizer, steps=3):
    for _ in range(steps):
        x, y = torch.randn(8, 10), torch.randint(0, 2, (8,))
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--optim", default="sgd")
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model, optimizer = setup(args)
    before = model.fc3.weight.detach().clone()
    train(model, optimizer)
    assert not torch.equal(before, model.fc3.weight)
    print("FIXED: ok")

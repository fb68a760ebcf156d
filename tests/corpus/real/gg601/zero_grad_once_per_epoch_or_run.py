"""Gradients cleared once per epoch, or once before training, instead of every step (GG601).

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/47175 - the feature request names the bug:
  `zero_grad()` called at the beginning of each epoch instead of each iteration, so every
  step applies the sum of the epoch's gradients so far.
* https://github.com/speedinghzl/Pytorch-Deeplab/issues/30 - a reader asks whether the single
  `optimizer.zero_grad()` before the loop should be inside it.

The look-alikes clear inside the loop, in a helper called on every iteration, or
accumulate on purpose and clear after each k-th step.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_loader(dim):
    return DataLoader(TensorDataset(torch.randn(64, dim), torch.randn(64, 1)), batch_size=8)


def train_cleared_per_epoch(epochs, dim=4):
    model = nn.Linear(dim, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    loader = make_loader(dim)
    for epoch in range(epochs):
        optimizer.zero_grad()
        for xb, yb in loader:  # expect: GG601
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()


def main(epochs, lr, dim=4):
    device = torch.device("cpu")
    model = nn.Linear(dim, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.MSELoss()
    loader = make_loader(dim)
    optimizer.zero_grad()
    for epoch in range(epochs):
        for xb, yb in loader:  # expect: GG601
            xb, yb = xb.to(device), yb.to(device)
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()


def train_cleared_each_step(epochs, dim=4):
    model = nn.Linear(dim, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    loader = make_loader(dim)
    optimizer.zero_grad()
    for epoch in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()


def backward_step(model, optimizer, criterion, xb, yb):
    optimizer.zero_grad()
    criterion(model(xb), yb).backward()


def train_with_helper(epochs, dim=4):
    model = nn.Linear(dim, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    loader = make_loader(dim)
    optimizer.zero_grad()
    for epoch in range(epochs):
        for xb, yb in loader:
            backward_step(model, optimizer, criterion, xb, yb)
            optimizer.step()


def train_accumulating(epochs, k=4, dim=4):
    model = nn.Linear(dim, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    loader = make_loader(dim)
    optimizer.zero_grad()
    for epoch in range(epochs):
        for i, (xb, yb) in enumerate(loader):
            loss = criterion(model(xb), yb) / k
            loss.backward()
            if (i + 1) % k == 0:
                optimizer.step()
                optimizer.zero_grad()

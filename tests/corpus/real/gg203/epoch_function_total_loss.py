"""A training function that receives model, loader, optimizer and criterion and returns the
mean epoch loss, summing `total_loss += loss` (the tensor, not `loss.item()`): every
batch's graph stays reachable from the running total until the epoch ends, so memory grows
batch by batch. The reports: "total_loss += loss [...] should be += loss.item()" and GPU
memory rising until out of memory.

Sources (rewritten in our own words, structure kept):
https://github.com/bubbliiiing/yolo3-pytorch/issues/3 and
https://github.com/open-mmlab/Amphion/issues/263 (`epoch_sum_loss += loss`).
"""

import torch
from torch import nn


def train_one_epoch(model, loader, optimizer, criterion):
    model.train()
    total_loss = 0
    for inputs, labels in loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss  # expect: GG203
    return total_loss / len(loader)


def train_one_epoch_fixed(model, loader, optimizer, criterion):
    model.train()
    total_loss = 0.0
    for inputs, labels in loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(loader)


def main(epochs=2):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    loader = [(torch.randn(3, 4), torch.tensor([0, 1, 1])) for _ in range(3)]
    for epoch in range(epochs):
        mean = train_one_epoch(model, loader, optimizer, criterion)
        assert mean.requires_grad  # the total still holds every batch's graph
        mean_fixed = train_one_epoch_fixed(model, loader, optimizer, criterion)
        assert isinstance(mean_fixed, float)


if __name__ == "__main__":
    main()

"""Loader batches that look like GG501 but are fine, or whose batch size is not certain."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

ROWS = 96
inputs = torch.randn(ROWS, 12)
labels = torch.randint(0, 5, (ROWS,))
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 5))
criterion = nn.CrossEntropyLoss(reduction="none")


def one_sample_at_a_time():
    # batch_size=1: the per-sample loss holds a single number, backward() accepts it.
    for x, y in DataLoader(TensorDataset(inputs, labels), batch_size=1):
        criterion(model(x), y).backward()
        break


def reduced_per_sample_loss():
    for x, y in DataLoader(TensorDataset(inputs, labels), batch_size=24):
        weights = torch.rand(x.shape[0])
        (criterion(model(x), y) * weights).mean().backward()


def batch_size_from_the_caller(batch_size):
    # Unknown: `batch_size` may be 1 (or None, which yields single rows).
    for x, y in DataLoader(TensorDataset(inputs, labels), batch_size=batch_size):
        criterion(model(x), y).backward()
        break


def batches_from_a_sampler():
    # A sampler decides how many rows a batch gets; the analysis does not follow it.
    sampler = torch.utils.data.SubsetRandomSampler([0])
    for x, y in DataLoader(TensorDataset(inputs, labels), batch_size=24, sampler=sampler):
        criterion(model(x), y).backward()


if __name__ == "__main__":
    one_sample_at_a_time()
    reduced_per_sample_loss()
    batch_size_from_the_caller(1)
    batches_from_a_sampler()
    print("ok")

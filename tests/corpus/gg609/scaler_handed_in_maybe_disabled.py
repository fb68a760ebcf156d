"""A scaler handed in, from a file that builds a disabled one (no GG609).

The entry point builds `GradScaler(enabled=False)`: `scale()` returns the loss unchanged and
the direct step below is what a run without mixed precision does. A scaler parameter is only
taken for an enabled one when the file builds no scaler that may be disabled.
"""

import torch
from torch import nn


def train_one_epoch(model, optimizer, batches, scaler):
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        optimizer.step()


def main():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    batches = [(torch.randn(4, 3), torch.randn(4, 1))]
    before = model.weight.detach().clone()
    train_one_epoch(model, optimizer, batches, scaler)
    assert (model.weight - before).abs().max() < 10  # an ordinary step


if __name__ == "__main__":
    main()

"""The training loop; its loss comes from the sibling module metrics.py."""
import torch

from .metrics import step_loss


def fit(model, x, y, steps=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = step_loss(model(x), y)
        loss.backward()
        optimizer.step()

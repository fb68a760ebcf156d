"""The no-grad loss is scaled or summed after the block: still no history (GG101)."""

import torch
from torch import nn

model = nn.Linear(8, 1)
criterion = nn.MSELoss()
ACCUMULATION = 4


def accumulate():
    for micro in range(ACCUMULATION):
        x, y = torch.randn(4, 8), torch.randn(4, 1)
        with torch.no_grad():  # expect: GG101
            loss = criterion(model(x), y)
        loss = loss / ACCUMULATION
        loss.backward()


def penalised():
    x, y = torch.randn(4, 8), torch.randn(4, 1)
    with torch.no_grad():  # expect: GG101
        data_loss = criterion(model(x), y)
        smoothness = model(x).diff(dim=0).abs().mean()
    total = data_loss + 0.1 * smoothness
    total.backward()

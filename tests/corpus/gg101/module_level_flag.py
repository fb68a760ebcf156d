"""A grad-mode flag assigned once at module level is known inside the file's functions (GG101)."""

import torch
from torch import nn

GRAD_ENABLED = False  # flipped by hand while "debugging memory use"

model = nn.Linear(10, 2)
criterion = nn.CrossEntropyLoss()


def train_step():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    torch.set_grad_enabled(GRAD_ENABLED)  # expect: GG101
    loss = criterion(model(x), y)
    torch.set_grad_enabled(True)
    loss.backward()


def train_step_with_block():
    x = torch.randn(16, 10)
    y = torch.randint(0, 2, (16,))
    with torch.set_grad_enabled(GRAD_ENABLED):  # expect: GG101
        loss = criterion(model(x), y)
    loss.backward()

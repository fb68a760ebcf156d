"""Gradient accumulation done on Python numbers instead of tensors (GG102).

`total` starts as `0.0` and only ever has floats added to it, so `total.backward()` raises
"'float' object has no attribute 'backward'".
"""

import torch
from torch import nn

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def accumulate(micro_batches):
    total = 0.0
    for _ in range(micro_batches):
        x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
        total += criterion(model(x), y).item()  # expect: GG102
    optimizer.zero_grad()
    total.backward()
    optimizer.step()

"""The loss is computed under no_grad() from tensors defined before the block (GG101).

Under no_grad() no operation records history, whatever its inputs: the result never
requires grad, even when an input does, so every backward below raises "element 0 of
tensors does not require grad and does not have a grad_fn" (verified with torch 2.13).
"""

import torch
from torch import nn

model = nn.Linear(4, 1)
criterion = nn.MSELoss()

# Seed 002, second example, verbatim.
x = torch.tensor([1.0], requires_grad=True)
y = torch.sin(x)

with torch.no_grad():  # expect: GG101
    z = y * 2

z.backward()


def train(loader):
    """The canonical shape: batches come from a loader, unknown to the analysis."""
    for inputs, targets in loader:
        with torch.no_grad():  # expect: GG101
            loss = criterion(model(inputs), targets)
        loss.backward()


def loss_on_outside_prediction():
    prediction = model(torch.randn(8, 4))
    with torch.no_grad():  # expect: GG101
        loss = criterion(prediction, torch.randn(8, 1))
    loss.backward()

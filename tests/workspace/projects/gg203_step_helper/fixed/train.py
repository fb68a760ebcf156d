"""Trains for an epoch and sums the step losses for the epoch's report."""
import torch
from torch import nn

from training.steps import train_step

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(128, 4)
y = x.sum(dim=1, keepdim=True)
epoch_loss = 0.0
for batch in range(8):
    rows = slice(batch * 16, (batch + 1) * 16)
    epoch_loss += train_step(model, optimizer, x[rows], y[rows]).item()
print("graph-kept", torch.is_tensor(epoch_loss))
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))

"""Fits a linear model with the loss helper of lib/losses.py."""
import torch
from torch import nn

from lib.losses import regression_loss

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
for step in range(3):
    optimizer.zero_grad()
    loss = regression_loss(model, x, y)
    loss.backward()
    optimizer.step()
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))

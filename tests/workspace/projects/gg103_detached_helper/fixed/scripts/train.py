"""Trains a classifier; run from the project folder (utils.py is at its root)."""
import torch
from torch import nn

from utils import classification_loss

torch.manual_seed(0)
model = nn.Linear(5, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, labels = torch.randn(32, 5), torch.randint(0, 3, (32,))
for epoch in range(3):
    optimizer.zero_grad()
    loss = classification_loss(model(x), labels)
    loss.backward()
    optimizer.step()
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))

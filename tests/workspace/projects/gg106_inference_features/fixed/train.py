"""Trains a linear probe on the features of a frozen backbone."""
import torch
import torch.nn.functional as F
from torch import nn

from features import extract

model = nn.Linear(16, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
images, labels = torch.randn(32, 8), torch.randint(0, 2, (32,))
for step in range(3):
    optimizer.zero_grad()
    feats = extract(images)
    loss = F.cross_entropy(model(feats), labels)
    loss.backward()
    optimizer.step()
print("param-grad-norm", sum(float(p.grad.norm()) for p in model.parameters()))

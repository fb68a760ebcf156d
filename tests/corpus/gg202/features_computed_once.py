"""Linear probe on frozen features, written so the forward pass happens once."""

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
head = nn.Linear(8, 3)
optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)

inputs = torch.randn(64, 16)
labels = torch.randint(0, 3, (64,))

features = encoder(inputs)

for step in range(100):
    logits = head(features)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()  # expect: GG202
    optimizer.step()

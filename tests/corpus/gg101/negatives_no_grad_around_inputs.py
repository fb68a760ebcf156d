"""no_grad() around data preparation or targets, with the loss computed outside: no GG101."""

import torch
import torch.nn.functional as F
from torch import nn

encoder = nn.Linear(16, 8)
target_encoder = nn.Linear(16, 8)
optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)


def augment(x):
    return x + 0.1 * torch.randn_like(x)


for step in range(20):
    batch = torch.randn(32, 16)
    with torch.no_grad():
        view_a = augment(batch)
        view_b = augment(batch)
        target = F.normalize(target_encoder(view_b), dim=1)
    prediction = F.normalize(encoder(view_a), dim=1)
    loss = 2 - 2 * (prediction * target).sum(dim=1).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def recomputed_after_probe():
    x = torch.randn(32, 16)
    with torch.no_grad():
        loss = encoder(x).pow(2).mean()
    print("probe", loss.item())
    loss = encoder(x).pow(2).mean()
    loss.backward()

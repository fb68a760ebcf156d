"""A hand-written gated layer and a clipped probability loss."""

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
proj = nn.Linear(12, 12)
gate_proj = nn.Linear(12, 12)
optimizer = torch.optim.SGD([*proj.parameters(), *gate_proj.parameters()], lr=0.1)

for step in range(10):
    x = torch.randn(4, 12)
    target = torch.rand(4, 12)
    gate = torch.sigmoid(gate_proj(x))
    gate.clamp_(0.05, 0.95)  # expect: GG302
    hidden = proj(x) * gate
    probs = torch.softmax(hidden, dim=-1)
    probs += 1e-8  # expect: GG302
    loss = F.mse_loss(probs, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

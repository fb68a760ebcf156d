"""In-place operations that autograd is fine with."""

import torch
from torch import nn
from torch.nn import functional as F

layer = nn.Linear(6, 6)
norm = nn.LayerNorm(6)
x = torch.randn(3, 6)
residual = torch.randn(3, 6)

# Linear and LayerNorm keep their inputs, not their outputs.
out = layer(x)
out += residual
out = norm(out)
out.relu_()

# Residual added before the activation, the ResNet order.
h = layer(x)
h += residual
h = F.relu(h)

# Changed after the backward pass.
probs = torch.softmax(h, dim=-1)
probs.sum().backward()
probs.add_(1e-8)

# Changed on a copy.
scores = torch.exp(layer(x))
scores = scores.clone()
scores[:, 0] = 0
scores.sum().backward()

# Changed under no_grad after the step (weight clipping on leaves).
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
optimizer.zero_grad()
F.mse_loss(layer(x), residual).backward()
optimizer.step()
with torch.no_grad():
    for p in layer.parameters():
        p.clamp_(-1.0, 1.0)

# An input changed in place before the forward pass.
x.mul_(0.5)
layer(x).sum().backward()

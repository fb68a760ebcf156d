"""Look-alikes of GG205 that run under torch 2.13.0 and must stay silent.

* a critic made of one nn.Linear on a plain data batch: Linear saves its weight only for
  the input's gradient, so a second backward after the step works;
* two losses on one optimizer, stepped once after both backward passes (the usual
  multi-task shape, e.g. the answer in https://github.com/leftthomas/SRGAN/issues/89);
* a step between two backward passes on different graphs (the second forward pass runs
  after the step).
"""

import torch
from torch import nn

torch.manual_seed(0)
probe = nn.Linear(6, 1)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.05)
features = torch.randn(16, 6)
score = probe(features)
score.mean().backward(retain_graph=True)
probe_opt.step()
score.pow(2).mean().backward()

encoder = nn.Sequential(nn.Conv1d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16, 3))
optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
for _ in range(3):
    signal = torch.randn(5, 2, 6)
    out = encoder(signal)
    reconstruction = out[:, :2].pow(2).mean()
    sparsity = out[:, 2].abs().mean()
    optimizer.zero_grad()
    reconstruction.backward(retain_graph=True)
    sparsity.backward()
    optimizer.step()

for _ in range(2):
    optimizer.zero_grad()
    a = encoder(torch.randn(5, 2, 6)).mean()
    a.backward(retain_graph=True)
    optimizer.step()
    b = encoder(torch.randn(5, 2, 6)).pow(2).mean()
    b.backward()
    optimizer.step()

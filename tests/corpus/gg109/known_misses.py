"""Forced losses GG109 does not prove yet (real bugs, marked `# missed:`).

* A model frozen in the same file: the forcing itself (`requires_grad_(True)`) reads as a
  possible unfreeze to the parameter analysis, so the output of the frozen model is not known
  to lack history (https://github.com/lxztju/pytorch_classification/issues/32: the loss needed
  `loss.requires_grad_(True)` "or it raises").
* The loop of https://github.com/ronghuaiyang/arcface-pytorch/issues/56, whose model and
  criterion arrive as parameters: the file does not show why the loss has no history, so
  nothing is certain (and GG401 no longer claims it has a grad_fn either).
"""

import torch
from torch import nn

probe = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 5))
probe.requires_grad_(False)  # meant for the feature layers only
probe_optimizer = torch.optim.SGD(probe.parameters(), lr=0.01)
for step in range(100):
    images, labels = torch.randn(32, 128), torch.randint(0, 5, (32,))
    probe_loss = nn.functional.cross_entropy(probe(images), labels)
    probe_loss.requires_grad_(True)  # missed: GG109
    probe_optimizer.zero_grad()
    probe_loss.backward()
    probe_optimizer.step()


def train(model, criterion, loader, optimizer):
    for data, label in loader:
        output = model(data)
        loss = criterion(output, label)
        loss.requires_grad = True  # missed: GG109
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

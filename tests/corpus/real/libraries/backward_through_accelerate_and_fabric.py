"""`accelerator.backward(loss)` (accelerate) and `fabric.backward(loss)` (Lightning Fabric)
run `loss.backward()`: the rules about backward passes apply to them.

The loops follow the training loops of accelerate's and Fabric's own quick-start
documentation (written in our own words); the bugs are the ones users report with plain
`loss.backward()`, e.g. a loss computed inside the `torch.no_grad()` block meant for the
metrics (https://github.com/GT-RIPL/AlwaysBeDreaming-DFCIL/issues/9 shows the no_grad
region drawn around the wrong lines).
"""

import lightning as L
import torch
from accelerate import Accelerator
from torch import nn


def train_accelerate(model, optimizer, loader):
    accelerator = Accelerator(gradient_accumulation_steps=2)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.no_grad():  # expect: GG101
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            accuracy = (logits.argmax(1) == y).float().mean()
        accelerator.backward(loss)
        optimizer.step()
        print(accuracy.item())


def train_fabric(model, optimizer, loader):
    fabric = L.Fabric(accelerator="cpu")
    model, optimizer = fabric.setup(model, optimizer)
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y).item()  # expect: GG102
        fabric.backward(loss)
        optimizer.step()


def train_fabric_per_sample(steps=10):
    fabric = L.Fabric(accelerator="cpu")
    head = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        per_sample = head(torch.randn(8, 4)).pow(2)
        fabric.backward(per_sample)  # expect: GG501
        optimizer.step()


# Look-alikes that are right.
def train_accelerate_well(model, optimizer, loader):
    accelerator = Accelerator()
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        optimizer.zero_grad()
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        with torch.no_grad():
            accuracy = (logits.argmax(1) == y).float().mean()
        accelerator.backward(loss)
        optimizer.step()
        print(accuracy.item(), loss.item())
        per_sample = nn.functional.mse_loss(model(x), y.float(), reduction="none")
        accelerator.backward(per_sample.mean())

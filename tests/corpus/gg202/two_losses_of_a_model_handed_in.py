"""Two losses of one output of a model handed in, backpropagated one after the other (GG202).

`train(model, loader, lr)` builds its optimizer from `model.parameters()`, so `model` is an
`nn.Module` whose parameters require grad; its output's graph holds the tensors its layers
kept for backward. `l1.backward()` frees them, and `l2.backward()` needs them again:
"Trying to backward through the graph a second time" (checked with torch 2.13.0). The shape
of the forum threads on auxiliary losses written as two backward calls.

The look-alikes retain the graph for the second call, backpropagate the sum once, or run the
model again for the second loss.
"""

import torch
import torch.nn.functional as F


def train(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        task = F.mse_loss(out, y)
        penalty = out.abs().mean()
        task.backward()  # expect: GG202
        penalty.backward()
        optimizer.step()


# --- look-alikes ---------------------------------------------------------------------------


def train_retained(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        task = F.mse_loss(out, y)
        penalty = out.abs().mean()
        task.backward(retain_graph=True)
        penalty.backward()
        optimizer.step()


def train_summed(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        (F.mse_loss(out, y) + out.abs().mean()).backward()
        optimizer.step()


def train_two_forwards(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        model(x).abs().mean().backward()
        optimizer.step()

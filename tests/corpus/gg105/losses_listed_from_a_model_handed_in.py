"""Per-sample losses of a model handed in, gathered in a list and rewrapped (GG105).

`model` is a parameter, known to be a module because its parameters are listed
(`model.parameters()`); its output has history but no known structure. `model(x) - y` tells
that it is a tensor: subtraction, division, powers and `@` exist for tensors, not for the
tuples, lists and dicts a module may return. So the per-sample loss has history, and
`torch.tensor(losses, requires_grad=True)` makes a new leaf from it: the model gets no
gradient. Shaped after the reports collected in tests/corpus/real/gg105 (fastmoe#49: a list of
losses rewrapped with torch.tensor).

The look-alikes stack the list (the graph is kept), rewrap only numbers for logging, or add
outputs whose structure is not known (`+` also concatenates lists: nothing is claimed).
"""

import torch
from torch import nn


def train_per_sample(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        losses = []
        for xi, yi in zip(x, y):
            losses.append(((model(xi) - yi) ** 2).mean())
        loss = torch.tensor(losses, requires_grad=True).mean()  # expect: GG105
        loss.backward()
        optimizer.step()


def train_per_sample_stacked(model, batches):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        losses = []
        for xi, yi in zip(x, y):
            losses.append(((model(xi) - yi) ** 2).mean())
        loss = torch.stack(losses).mean()
        loss.backward()
        optimizer.step()
    return torch.tensor([value.item() for value in losses])


def summed_outputs(model, batches, history):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        total = model(x) + model(y)
        history.append(total)
        optimizer.step()


def main():
    model = nn.Linear(3, 1)
    batches = [(torch.randn(4, 3), torch.randn(4, 1))]
    before = model.weight.detach().clone()
    train_per_sample(model, batches)
    assert torch.equal(before, model.weight)  # no gradient reached the model
    train_per_sample_stacked(model, batches)
    assert not torch.equal(before, model.weight)
    summed_outputs(model, [(torch.randn(4, 3), torch.randn(4, 3))], [])


if __name__ == "__main__":
    main()

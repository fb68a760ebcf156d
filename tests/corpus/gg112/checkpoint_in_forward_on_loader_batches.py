"""Reentrant checkpoints inside `forward`, seen from the loop that calls the model.

`DeepMLP.forward` checkpoints its first half (a method of the model) on the input it is
given. The training loop feeds it batches of a `DataLoader` over a `TensorDataset` of data
made with `torch.randn`: rows of tensors without history, stacked by the default collate,
never require grad. So the reentrant checkpoint's output has no history and the first
half's layers never get a gradient (checked with torch 2.13.0: their `.grad` stays None
while the head trains).

Silent: the same model fed the output of an embedding (its input then requires grad), a
loader over a dataset holding a tensor that requires grad, a loader with its own
`collate_fn` (which may build anything), and the non-reentrant checkpoint. Modelled on the
forum reports of "None of the inputs have requires_grad=True" warnings in models that
checkpoint their own blocks (https://github.com/pytorch/pytorch/issues/7617 has the
smallest form), written anew for this corpus.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, TensorDataset


class DeepMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))
        self.head = nn.Linear(width, 2)

    def _first_half(self, x):
        return self.first(x)

    def forward(self, x):
        h = checkpoint(self._first_half, x, use_reentrant=True)  # expect: GG112
        return self.head(h)


class SafeMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(width, width), nn.ReLU())
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        h = checkpoint(self.first, x, use_reentrant=False)
        return self.head(h)


class EmbeddedMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(width, width), nn.ReLU())
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        h = checkpoint(self.first, x, use_reentrant=True)
        return self.head(h)


def train(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()


def train_safe(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()


def train_embedded(model, tokens, labels):
    embed = nn.Embedding(10, 8)
    optimizer = torch.optim.SGD([*model.parameters(), *embed.parameters()], lr=0.1)
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(embed(tokens)), labels)
    loss.backward()
    optimizer.step()


def collate_pairs(items):
    xs, ys = zip(*items)
    return torch.stack(xs), torch.stack(ys)


def train_collated(model, loader):
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()


def main():
    data = torch.randn(16, 8)
    labels = torch.randint(0, 2, (16,))
    model = DeepMLP(8)
    train(model, DataLoader(TensorDataset(data, labels), batch_size=4))
    assert model.first[0].weight.grad is None and model.head.weight.grad is not None

    safe = SafeMLP(8)
    train_safe(safe, DataLoader(TensorDataset(data, labels), batch_size=4))
    assert safe.first[0].weight.grad is not None

    embedded = EmbeddedMLP(8)
    train_embedded(embedded, torch.randint(0, 10, (4,)), labels[:4])
    assert embedded.first[0].weight.grad is not None

    learned = EmbeddedMLP(8)
    inputs = torch.randn(16, 8, requires_grad=True)
    train_collated(learned, DataLoader(TensorDataset(inputs, labels), batch_size=4))
    assert learned.first[0].weight.grad is not None

    custom = EmbeddedMLP(8)
    pairs = [(torch.randn(8, requires_grad=True), torch.tensor(i % 2)) for i in range(8)]
    train_collated(custom, DataLoader(pairs, batch_size=4, collate_fn=collate_pairs))
    assert custom.first[0].weight.grad is not None


if __name__ == "__main__":
    main()

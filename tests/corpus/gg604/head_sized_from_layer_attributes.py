"""A classifier head sized from the backbone's layer attributes, added after the optimizer.

Modelled on https://github.com/meta-pytorch/torchtune/pull/2356, a builder that turns a
language model into a classifier by swapping its output layer for a new one sized from the
model's own hyperparameters (`head_dim * num_heads`). Here the swap uses a head class of
the file given `model.encoder.hidden_size`, a plain int torch keeps on the LSTM, and it
happens after the optimizer was built: the new head's weights get gradients that no
optimizer applies. The look-alikes build the optimizer after the swap, and build the new
head from `model.embed.weight` (a layer attribute that is a parameter the optimizer
already holds, not a number: the head brings no parameter of its own, so nothing is
stale).
"""

import torch
import torch.nn.functional as F
from torch import nn

SIZES = {"vocab": 40, "width": 12, "labels": 3, "lr": 0.5}


class ClassHead(nn.Module):
    def __init__(self, width, labels):
        super().__init__()
        self.proj = nn.Linear(width, labels)

    def forward(self, h):
        return self.proj(h)


class TiedHead(nn.Module):
    """Scores against the embedding table: its only parameter is the one it is given."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, h):
        return h @ self.table.t()


class Encoder(nn.Module):
    def __init__(self, vocab, width, labels):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.encoder = nn.LSTM(width, width, batch_first=True)
        self.head = ClassHead(width, labels)

    def forward(self, ids):
        out, _ = self.encoder(self.embed(ids))
        return self.head(out[:, -1])


def batch():
    ids = torch.randint(0, SIZES["vocab"], (8, 5))
    return ids, torch.randint(0, SIZES["labels"], (8,))


def stale_head():
    model = Encoder(SIZES["vocab"], SIZES["width"], 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=SIZES["lr"])
    model.head = ClassHead(model.encoder.hidden_size, SIZES["labels"])  # expect: GG604
    before = model.head.proj.weight.detach().clone()
    ids, labels = batch()
    for _ in range(3):
        optimizer.zero_grad()
        F.cross_entropy(model(ids), labels).backward()
        optimizer.step()
    return torch.equal(before, model.head.proj.weight)


def head_before_optimizer():
    model = Encoder(SIZES["vocab"], SIZES["width"], 2)
    model.head = ClassHead(model.encoder.hidden_size, SIZES["labels"])
    optimizer = torch.optim.SGD(model.parameters(), lr=SIZES["lr"])
    before = model.head.proj.weight.detach().clone()
    ids, labels = batch()
    for _ in range(3):
        optimizer.zero_grad()
        F.cross_entropy(model(ids), labels).backward()
        optimizer.step()
    return torch.equal(before, model.head.proj.weight)


def tied_head():
    model = Encoder(SIZES["vocab"], SIZES["width"], 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=SIZES["lr"])
    model.head = TiedHead(model.embed.weight)
    before = model.embed.weight.detach().clone()
    ids, _ = batch()
    labels = torch.randint(0, SIZES["vocab"], (8,))
    for _ in range(3):
        optimizer.zero_grad()
        F.cross_entropy(model(ids), labels).backward()
        optimizer.step()
    return torch.equal(before, model.embed.weight)


if __name__ == "__main__":
    torch.manual_seed(0)
    assert stale_head(), "the new head never changes"
    assert not head_before_optimizer()
    assert not tied_head(), "the tied head trains the embedding the optimizer holds"
    print("ok")

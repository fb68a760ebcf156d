"""A translation-style knowledge-graph embedding whose hinge loss keeps one value per triple
(GG501).

Modelled on https://github.com/sh0416/bpr/issues/13: embedding tables kept as parameters,
rows picked with tensors of ids (`table[ids]`, one row per id), a score per row, and the
per-row scores handed to `backward()` without a reduction, which raised "grad can be
implicitly created only for scalar outputs". Here the ids come from a DataLoader over a
TensorDataset of `torch.randint` columns, so every batch holds 16 int64 ids and the picked
rows are (16, DIM). Look-alikes: the loss averaged first, a batch of one triple (a
single element, which backward accepts), and rows picked by a boolean mask (their number
is not known) reduced before backward.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

ENTITIES, RELATIONS, DIM, MARGIN = 40, 5, 8, 1.0


class Translation(nn.Module):
    def __init__(self):
        super().__init__()
        self.entities = nn.Parameter(torch.randn(ENTITIES, DIM) * 0.1)
        self.relations = nn.Parameter(torch.randn(RELATIONS, DIM) * 0.1)

    def distance(self, heads, relations, tails):
        moved = self.entities[heads] + self.relations[relations]
        return (moved - self.entities[tails]).pow(2).sum(dim=1)

    def forward(self, heads, relations, tails, corrupted):
        near = self.distance(heads, relations, tails)
        far = self.distance(heads, relations, corrupted)
        return torch.relu(MARGIN + near - far)


def triples():
    heads = torch.randint(0, ENTITIES, (64,))
    relations = torch.randint(0, RELATIONS, (64,))
    tails = torch.randint(0, ENTITIES, (64,))
    corrupted = torch.randint(0, ENTITIES, (64,))
    return DataLoader(TensorDataset(heads, relations, tails, corrupted), batch_size=16)


def train_per_triple_hinge(model, opt):
    for heads, relations, tails, corrupted in triples():
        opt.zero_grad()
        hinge = model(heads, relations, tails, corrupted)
        hinge.backward()  # expect: GG501
        opt.step()


def train_mean_hinge(model, opt):
    for heads, relations, tails, corrupted in triples():
        opt.zero_grad()
        hinge = model(heads, relations, tails, corrupted)
        hinge.mean().backward()
        opt.step()


def one_triple(model):
    heads, tails = torch.randint(0, ENTITIES, (1,)), torch.randint(0, ENTITIES, (1,))
    relations, corrupted = torch.tensor([2]), torch.randint(0, ENTITIES, (1,))
    hinge = model(heads, relations, tails, corrupted)
    hinge.backward()


def masked_rows(model):
    keep = model.entities[:, 0] > 0
    picked = model.entities[keep]
    picked.pow(2).sum().backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Translation()
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    train_mean_hinge(net, sgd)
    one_triple(net)
    masked_rows(net)
    try:
        train_per_triple_hinge(net, sgd)
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-triple hinge ran")
    print("ok")

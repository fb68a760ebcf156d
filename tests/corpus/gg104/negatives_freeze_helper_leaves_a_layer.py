"""A freeze helper called on some layers only: the rest trains (no GG104).

The same one-line helper as in `layers_frozen_one_by_one_by_a_helper.py`, called on the
embedding and the mixing layer of a model whose head it leaves alone, and (in another
function) on a layer of a second model only: backward runs and the head trains (checked
with torch 2.13.0). Also a helper that returns before its freeze for modules it is told to
keep.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Summariser(nn.Module):
    def __init__(self, vocab=40, width=12, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.mix = nn.Conv1d(width, width, 3, padding=1)
        self.head = nn.Linear(width, classes)

    def forward(self, ids):
        h = self.mix(self.embed(ids).transpose(1, 2)).amax(-1)
        return self.head(h)


def freeze(module):
    for p in module.parameters():
        p.requires_grad = False


def freeze_unless(module, keep):
    if keep:
        return
    module.requires_grad_(False)


def train_the_head(ids, labels):
    model = Summariser()
    freeze(model.embed)
    freeze(model.mix)
    loss = F.cross_entropy(model(ids), labels)
    loss.backward()


def train_all_but_the_embedding(ids, labels):
    model = Summariser()
    freeze(model.embed)
    F.cross_entropy(model(ids), labels).backward()


def keep_what_was_asked(ids, labels, keep_head):
    model = Summariser()
    freeze(model.embed)
    freeze(model.mix)
    freeze_unless(model.head, keep_head)
    F.cross_entropy(model(ids), labels).backward()


if __name__ == "__main__":
    ids, labels = torch.randint(0, 40, (4, 9)), torch.randint(0, 3, (4,))
    train_the_head(ids, labels)
    train_all_but_the_embedding(ids, labels)
    keep_what_was_asked(ids, labels, True)

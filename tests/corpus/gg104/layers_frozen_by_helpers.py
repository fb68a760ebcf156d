"""Freezing a language model's parts through helpers, until nothing trains.

In https://github.com/pyg-team/pytorch_geometric/pull/9996 the "frozen LLM" path of an
example turned every parameter the loss depended on off, and `loss.backward()` raised
"element 0 of tensors does not require grad and does not have a grad_fn". Here a small
tagger freezes its token embedding with a method of its own and its encoder (a
`nn.TransformerEncoder` of a layer built in `__init__`) and head with a helper taking the
model: each helper freezes a layer of the model it is given, and the forward pass then runs
only frozen layers on token ids (checked with torch 2.13.0).

Silent: the same helpers leaving the head out (it trains), a helper freezing under a
flag, and a whole-model freeze followed by a new head.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self, vocab, tags, width=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, 2, dim_feedforward=32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.head = nn.Linear(width, tags)

    def freeze_embeddings(self):
        for p in self.embed.parameters():
            p.requires_grad = False

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids)))


def freeze_body(model, head_too):
    model.encoder.requires_grad_(False)
    if head_too:
        model.head.requires_grad_(False)


def freeze_all_but_head(model):
    model.encoder.requires_grad_(False)


def freeze_upper(model):
    model.encoder.requires_grad_(False)
    model.head.requires_grad_(False)  # expect: GG104


def trains_the_head(ids, tags):
    model = Tagger(50, 4)
    model.freeze_embeddings()
    freeze_all_but_head(model)
    out = model(ids)
    F.cross_entropy(out.flatten(0, 1), tags.flatten()).backward()


def maybe_frozen(ids, tags, head_too):
    model = Tagger(50, 4)
    model.freeze_embeddings()
    freeze_body(model, head_too)
    out = model(ids)
    F.cross_entropy(out.flatten(0, 1), tags.flatten()).backward()


def new_head(ids, tags):
    model = Tagger(50, 4)
    model.requires_grad_(False)
    model.head = nn.Linear(16, 4)
    out = model(ids)
    F.cross_entropy(out.flatten(0, 1), tags.flatten()).backward()


def main():
    ids, tags = torch.randint(0, 50, (2, 6)), torch.randint(0, 4, (2, 6))
    trains_the_head(ids, tags)
    maybe_frozen(ids, tags, False)
    new_head(ids, tags)
    model = Tagger(50, 4)
    model.freeze_embeddings()
    freeze_upper(model)
    out = model(ids)
    loss = F.cross_entropy(out.flatten(0, 1), tags.flatten())
    loss.backward()


if __name__ == "__main__":
    main()

"""A freeze helper called on every layer of a model, one call per layer (GG104).

Transfer-learning scripts keep a tiny helper, `def freeze(module): for p in
module.parameters(): p.requires_grad = False`, and call it on each part they do not want to
train. Called on the embedding, the encoder and the head of a model that has nothing else,
it leaves no parameter that requires grad, and the first `loss.backward()` raises "element 0
of tensors does not require grad and does not have a grad_fn" (checked with torch 2.13.0).
The helper freezes whatever module it is handed: each call freezes its own argument.

The look-alikes (`negatives_freeze_helper_leaves_a_layer.py`) call it on some parts only.
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
    for p in module.parameters():  # expect: GG104
        p.requires_grad = False


def probe_everything(ids, labels):
    model = Summariser()
    freeze(model.embed)
    freeze(model.mix)
    freeze(model.head)
    loss = F.cross_entropy(model(ids), labels)
    loss.backward()


if __name__ == "__main__":
    probe_everything(torch.randint(0, 40, (4, 9)), torch.randint(0, 3, (4,)))

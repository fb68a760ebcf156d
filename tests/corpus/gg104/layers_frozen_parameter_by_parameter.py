"""Layers frozen one parameter at a time, until the model has nothing left to train (GG104).

Code that loads pretrained vectors or a calibrated projection often freezes it by its
parameters rather than by the layer (`emb.weight.requires_grad = False`, as the PyTorch
forum answers on freezing an embedding suggest). An embedding has no parameter but `weight`,
and a linear layer none but `weight` and `bias`: when those are all the model runs, the
first backward raises "element 0 of tensors does not require grad and does not have a
grad_fn" (checked with torch 2.13.0).

Silent: a projection whose bias still trains, and a frozen embedding followed by a layer
that trains (a weight turned on again, or a bias replaced by a new parameter, are in
`negatives_parameters_turned_on_again.py`: a file doing either keeps no frozen facts).
"""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
features = torch.randn(32, 6)
labels = torch.randint(0, 3, (32,))

calibrated = nn.Linear(6, 3)
calibrated.weight.requires_grad = False
calibrated.bias.requires_grad_(False)  # expect: GG104
loss = F.cross_entropy(calibrated(features), labels)
loss.backward()


class FrozenVectorsBagModel(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.vectors = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.vectors.weight.requires_grad = False  # expect: GG104

    def forward(self, ids):
        return self.vectors(ids).sum(-1)


bag = FrozenVectorsBagModel(50, 4)
target = torch.randn(5)
bag_loss = F.mse_loss(bag(torch.randint(0, 50, (5, 7))), target)
bag_loss.backward()

bias_only = nn.Linear(6, 3)
bias_only.weight.requires_grad = False
F.cross_entropy(bias_only(features), labels).backward()


class VectorsThenHead(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.vectors = nn.Embedding(vocab, dim)
        self.vectors.weight.requires_grad = False
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        return self.head(self.vectors(ids).mean(1))


model = VectorsThenHead(50, 4, 3)
F.cross_entropy(model(torch.randint(0, 50, (8, 5))), labels[:8]).backward()

"""A module keeps a computed tensor on itself in `forward`; a probe reads its `.grad` after
backward (GG403).

An attention pooling layer stores its weights as `self.weights` so that a saliency probe
can later ask how much the loss depends on each position. The probe reads
`model.weights.grad` after `loss.backward()`: the weights are computed from the scoring
layer (not a leaf) and nothing calls `retain_grad()` on them, so `.grad` is None and the
probe's `.abs()` raises AttributeError (checked with torch 2.13.0 below). The attribute is
stored only by `forward`, so whoever reads it reads a tensor `forward` computed. Modelled
on https://discuss.pytorch.org/t/trying-to-understand-why-output-of-nn-linear-for-output-layer-isnt-retaining/40116
(an RNN keeping its layer outputs on `self` and finding their gradient None).

The look-alike keeps a leaf: an input mask that a method of the tuner makes with
`requires_grad=True`, whose `.grad` backward does fill.
"""

import torch
from torch import nn


class AttentionPool(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.head = nn.Linear(dim, classes)

    def forward(self, seq):
        self.weights = torch.softmax(self.score(seq).squeeze(-1), dim=1)
        pooled = (self.weights.unsqueeze(-1) * seq).sum(1)
        return self.head(pooled)


def position_saliency(model, seq, labels):
    loss = nn.functional.cross_entropy(model(seq), labels)
    loss.backward()
    return model.weights.grad.abs().mean(0)  # expect: GG403


class MaskTuner:
    """Learns which positions matter with a soft mask over the input."""

    def __init__(self, model):
        self.model = model

    def start(self, length):
        self.mask_logits = torch.zeros(length, requires_grad=True)

    def mask_saliency(self, seq, labels):
        gate = torch.sigmoid(self.mask_logits).unsqueeze(-1)
        loss = nn.functional.cross_entropy(self.model(seq * gate), labels)
        loss.backward()
        return self.mask_logits.grad.abs()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = AttentionPool(6, 3)
    seq, labels = torch.randn(4, 5, 6), torch.randint(0, 3, (4,))
    tuner = MaskTuner(model)
    tuner.start(5)
    print("mask saliency", tuner.mask_saliency(seq, labels))
    try:
        position_saliency(model, seq, labels)
    except AttributeError as error:
        print(f"BUGGY: {error}")

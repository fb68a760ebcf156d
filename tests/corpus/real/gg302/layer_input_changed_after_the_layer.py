"""Tensors a layer with weights kept for its backward, changed in place afterwards.

* A speech backbone's positional convolution reads a transposed view of the features
  (`self.pos_conv(x.transpose(1, 2))`) and the block then adds the result into the
  features with `x += x_conv`: the convolution saved the view, which shares `x`'s version
  counter, so backward raises "one of the variables needed for gradient computation has
  been modified by an inplace operation". The merged fix: `x = x + x_conv`.
* A feature-masking step zeroes the first feature column of the input AFTER it went through
  the classifier's first layer (`x[:, 0] = 0`), which kept that input to compute its weight
  gradient.
* A data-augmentation helper scales the batch, feeds it to the encoder and then adds noise
  to the scaled batch in place (`scaled.add_(noise)`).

Sources (rewritten in our own words, structure kept): https://github.com/microsoft/unilm/pull/999
(`x += x_conv` in backbone.py) and https://github.com/idiap/fast-transformers/pull/10
(in-place updates of tensors a later gradient needs).
"""

import torch
from torch import nn


class ConvPositionalBlock(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.pos_conv = nn.Conv1d(dim, dim, 3, padding=1)

    def forward(self, x):
        x = self.norm(x)
        x_conv = self.pos_conv(x.transpose(1, 2)).transpose(1, 2)
        x += x_conv  # expect: GG302
        return x


class MaskedClassifier(nn.Module):
    def __init__(self, n_in: int = 5, n_out: int = 3) -> None:
        super().__init__()
        self.hidden = nn.Linear(n_in, 16)
        self.out = nn.Linear(16, n_out)

    def forward(self, x):
        h = torch.relu(self.hidden(x))
        x[:, 0] = 0  # expect: GG302
        return self.out(h)


def augmented_features(encoder, batch, noise_level=0.1):
    scaled = batch * 2.0
    features = encoder(scaled)
    scaled.add_(noise_level * torch.randn_like(scaled))  # expect: GG302
    return features


def train_block(model, batches):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x in batches:
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()


def train_classifier(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def train_encoder(encoder, batches):
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    for batch in batches:
        optimizer.zero_grad()
        augmented_features(encoder, batch).mean().backward()
        optimizer.step()


def expect_in_place_error(error):
    assert "modified by an inplace operation" in str(error)


if __name__ == "__main__":
    try:
        train_block(ConvPositionalBlock(), [torch.randn(2, 6, 8)])
    except RuntimeError as error:
        expect_in_place_error(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        train_classifier(MaskedClassifier(), [(torch.randn(4, 5), torch.tensor([0, 1, 2, 0]))])
    except RuntimeError as error:
        expect_in_place_error(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        train_encoder(nn.Linear(5, 2), [torch.randn(3, 5)])
    except RuntimeError as error:
        expect_in_place_error(error)
    else:
        raise AssertionError("expected the in-place error")

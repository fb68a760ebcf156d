"""Scaled dot-product attention written as a helper: the padding mask is applied with
`masked_fill_` AFTER the softmax (to zero the padded keys' weights), but softmax saved its
output for the backward, so the first `loss.backward()` raises "one of the variables
needed for gradient computation has been modified by an inplace operation: [...] which is
output 0 of SoftmaxBackward0". Masking the scores before the softmax (out of place) is the
usual fix.

Source (rewritten in our own words, structure kept):
https://discuss.pytorch.org/t/encounter-the-runtimeerror-one-of-the-variables-needed-for-gradient-computation-has-been-modified-by-an-inplace-operation/836
and https://github.com/yaohungt/Multimodal-Transformer/issues/30 (in-place edits inside a
multi-head attention module).
"""

import math

import torch
from torch import nn


def attend(q, k, v, pad_mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    weights = torch.softmax(scores, dim=-1)
    weights.masked_fill_(pad_mask, 0.0)  # expect: GG302
    return weights @ v


def attend_packed(qkv, pad_mask):
    q, k, v = qkv.chunk(3, dim=-1)
    weights = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    weights.masked_fill_(pad_mask, 0.0)  # expect: GG302
    return weights @ v


class SelfAttention(nn.Module):
    """Separate projections for queries, keys and values, as most tutorials write it."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, pad_mask):
        ctx = attend(self.q_proj(x), self.k_proj(x), self.v_proj(x), pad_mask)
        return self.out(ctx)


class PackedSelfAttention(nn.Module):
    """One packed projection split by `chunk`: each piece is a view of the projection (how
    many pieces there are does not matter: every one of them is)."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, pad_mask):
        return attend_packed(self.qkv(x), pad_mask)


def fit(model, batches, lr=0.01):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for x, mask, y in batches:
        optimizer.zero_grad()
        loss = (model(x, mask) - y).pow(2).mean()
        loss.backward()
        optimizer.step()


def fit_packed(model, batches, lr=0.01):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for x, mask, y in batches:
        optimizer.zero_grad()
        loss = (model(x, mask) - y).pow(2).mean()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    mask = torch.zeros(2, 5, 5, dtype=torch.bool)
    mask[:, :, -1] = True
    data = [(torch.randn(2, 5, 8), mask, torch.randn(2, 5, 8))]
    try:
        fit(SelfAttention(), data)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        fit_packed(PackedSelfAttention(), data)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")

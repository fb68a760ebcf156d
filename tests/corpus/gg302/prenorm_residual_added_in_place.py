"""Pre-norm transformer blocks that add their residual branches in place.

A pre-norm block normalises its input, runs a branch on it and adds the branch back:
`x = x + branch(norm(x))`. Written as `x += branch(norm(x))` it changes `x` after the norm
layer kept it for the backward pass (`nn.LayerNorm`, `nn.BatchNorm*`, `nn.GroupNorm` keep
their input to compute their weight's gradient, even when the input itself does not
require grad), so backward raises "one of the variables needed for gradient computation
has been modified by an inplace operation" (checked with torch 2.13.0). Each of the two
adds fails on its own: with the first written out of place, `norm2` keeps the new `x` and
the second add changes it. The fixed twins and look-alikes are in
`negatives_residual_added_out_of_place.py`.

Source (rewritten in our own words, structure kept):
https://github.com/vllm-project/vllm/pull/24500 - a change "preferring in-place add" turned
`x = x + self.ls1(self.attn(self.norm1(x), mask))` into `x += ...`; the reviewer pointed
out that it breaks training because `norm1` kept `x` for its gradient, and it was
reverted to out-of-place additions.
"""

import torch
from torch import nn


class LayerScale(nn.Module):
    def __init__(self, dim: int, init: float = 1e-5) -> None:
        super().__init__()
        self.gamma = nn.Parameter(init * torch.ones(dim))

    def forward(self, x):
        return x * self.gamma


class EncoderBlock(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.Linear(dim, dim)
        self.ls1 = LayerScale(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.ls2 = LayerScale(dim)

    def forward(self, x):
        x += self.ls1(self.attn(self.norm1(x)))  # expect: GG302
        x += self.ls2(self.mlp(self.norm2(x)))  # expect: GG302
        return x


def fit(block, batches, steps):
    optimizer = torch.optim.AdamW(block.parameters(), lr=1e-3)
    for _ in range(steps):
        for tokens, target in batches:
            optimizer.zero_grad()
            loss = (block(tokens) - target).pow(2).mean()
            loss.backward()
            optimizer.step()


def conv_stage(features):
    """A convolutional stage with a batch-normalised branch added back in place."""
    bn = nn.BatchNorm2d(4)
    conv = nn.Conv2d(4, 4, 3, padding=1)
    features += conv(bn(features))  # expect: GG302
    features.mean().backward()


if __name__ == "__main__":
    data = [(torch.randn(2, 5, 8), torch.randn(2, 5, 8))]
    try:
        fit(EncoderBlock(), data, 1)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    try:
        conv_stage(torch.randn(2, 4, 6, 6))
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")

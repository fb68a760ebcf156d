"""Writes into slices of a leaf that requires grad, with gradient recording on: a layer's
`.weight` (a parameter, so a leaf) or a tensor created with `requires_grad=True`. The first
write raises "a view of a leaf Variable that requires grad is being used in an in-place
operation"; each later write to the same leaf would raise the same (checked with torch
2.13.0), so every write is reported.

Sources (rewritten in our own words, structure kept):
* https://github.com/Atcold/NYU-DLSP20/issues/765 - sinusoidal position tables written
  column by column into an embedding weight.
* https://github.com/PingoLH/FCHarDNet/issues/61 - merged weights copied into a fresh
  convolution's weight by slice assignment.
* https://github.com/BaiTheBest/SparseLLM/issues/13 - a variable optimised by hand with
  `-=` outside `torch.no_grad()`; here on a masked part of it.
"""

import torch
from torch import nn


def zero_padding_rows(vocab: int, dim: int, pad: int, unk: int) -> nn.Embedding:
    emb = nn.Embedding(vocab, dim)
    emb.weight[pad] = 0.0  # expect: GG301
    emb.weight[unk] = 0.0  # expect: GG301
    return emb


def sinusoidal_table(positions: int, dim: int) -> nn.Embedding:
    table = nn.Embedding(positions, dim)
    pos = torch.arange(positions).unsqueeze(1).float()
    freq = torch.exp(torch.arange(0, dim, 2).float() * (-9.2 / dim))
    table.weight[:, 0::2] = torch.sin(pos * freq)  # expect: GG301
    table.weight[:, 1::2] = torch.cos(pos * freq)  # expect: GG301
    return table


def masked_descent(steps: int, lr: float) -> torch.Tensor:
    codes = torch.randn(6, 4, requires_grad=True)
    target = torch.randn(6, 4)
    active = torch.tensor([True, False, True, True, False, True])
    for _ in range(steps):
        loss = (codes - target).pow(2).sum()
        loss.backward()
        codes[active] -= lr * codes.grad[active]  # expect: GG301
        codes.grad.zero_()
    return codes


if __name__ == "__main__":
    for build in (
        lambda: zero_padding_rows(10, 4, 0, 1),
        lambda: sinusoidal_table(6, 4),
        lambda: masked_descent(2, 0.1),
    ):
        try:
            build()
        except RuntimeError as error:
            assert "leaf Variable that requires grad" in str(error)
        else:
            raise AssertionError("expected the leaf error")

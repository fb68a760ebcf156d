"""Look-alikes of `slices_of_leaves_written.py` that run (checked with torch 2.13.0): the
writes happen under `torch.no_grad()`, through `.data`, into a detached alias, into a copy,
through `nn.init` (which switches recording off itself), or into a plain tensor. A plain
tensor that an in-place add gives history is no longer a leaf: a second in-place op on it
is fine.
"""

import torch
from torch import nn


def zero_padding_rows(vocab: int, dim: int, pad: int, unk: int) -> nn.Embedding:
    emb = nn.Embedding(vocab, dim)
    with torch.no_grad():
        emb.weight[pad] = 0.0
        emb.weight[unk] = 0.0
    return emb


def sinusoidal_table(positions: int, dim: int) -> nn.Embedding:
    table = nn.Embedding(positions, dim)
    pos = torch.arange(positions).unsqueeze(1).float()
    freq = torch.exp(torch.arange(0, dim, 2).float() * (-9.2 / dim))
    table.weight.data[:, 0::2] = torch.sin(pos * freq)
    table.weight.data[:, 1::2] = torch.cos(pos * freq)
    return table


def detached_alias(layer: nn.Linear) -> nn.Linear:
    weight = layer.weight.detach()
    weight[0] = 0.0
    weight[1] = 1.0
    return layer


def copied_codes(steps: int, lr: float) -> torch.Tensor:
    codes = torch.randn(6, 4, requires_grad=True)
    target = torch.randn(6, 4)
    for _ in range(steps):
        loss = (codes - target).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            codes[codes.grad.abs() > 1] -= lr * 2.0
            codes -= lr * codes.grad
        codes.grad.zero_()
    snapshot = codes.clone()
    snapshot[0] = 0.0
    return snapshot


def initialise(layer: nn.Linear) -> None:
    nn.init.zeros_(layer.bias)
    nn.init.normal_(layer.weight, std=0.02)


def accumulate(layer: nn.Linear, inputs: torch.Tensor) -> torch.Tensor:
    total = torch.zeros(3, 2)
    total += layer(inputs)
    total *= 0.5
    total[0] = 0.0
    total.sum().backward()
    return total


if __name__ == "__main__":
    zero_padding_rows(10, 4, 0, 1)
    sinusoidal_table(6, 4)
    detached_alias(nn.Linear(3, 2))
    copied_codes(2, 0.1)
    initialise(nn.Linear(3, 2))
    accumulate(nn.Linear(4, 2), torch.randn(3, 4))

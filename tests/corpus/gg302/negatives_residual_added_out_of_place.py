"""Look-alikes of `prenorm_residual_added_in_place.py` that run: the fixed twins (residual
added out of place, as the reverted change in https://github.com/vllm-project/vllm/pull/24500
went back to), and in-place adds that change nothing a graph node kept (checked with
torch 2.13.0):

* `nn.RMSNorm` keeps intermediate values, not an input that does not require grad;
* a norm layer keeps its input, not its output: changing the normalised tensor is fine;
* the in-place add after the only backward pass;
* the block evaluated under `torch.no_grad()` keeps nothing;
* a residual kept in a clone (the in-place add changes the copy);
* a plain tensor that gains history from an in-place add is no longer a leaf: a second
  in-place op on it is fine (neither GG301 nor GG302).
"""

import torch
from torch import nn


class EncoderBlock(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class CloningBlock(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        out = x.clone()
        out += self.proj(self.norm(x))
        return out


def fit(block, batches, steps):
    optimizer = torch.optim.AdamW(block.parameters(), lr=1e-3)
    for _ in range(steps):
        for tokens, target in batches:
            optimizer.zero_grad()
            loss = (block(tokens) - target).pow(2).mean()
            loss.backward()
            optimizer.step()


def conv_stage(features):
    bn = nn.BatchNorm2d(4)
    conv = nn.Conv2d(4, 4, 3, padding=1)
    features = features + conv(bn(features))
    features.mean().backward()


def rms_stage(hidden):
    norm = nn.RMSNorm(8)
    proj = nn.Linear(8, 8)
    hidden += proj(norm(hidden))
    hidden.mean().backward()


def normed_then_shifted(hidden):
    norm = nn.LayerNorm(8)
    proj = nn.Linear(8, 8)
    normed = norm(hidden)
    normed += 1.0
    proj(normed).mean().backward()


def residual_after_backward(hidden):
    norm = nn.LayerNorm(8)
    proj = nn.Linear(8, 8)
    out = proj(norm(hidden))
    out.mean().backward()
    hidden += out.detach()
    return hidden


def evaluate(block, tokens):
    block.eval()
    with torch.no_grad():
        out = block.norm1(tokens)
        tokens += block.attn(out)
    return tokens


def accumulate_features(layer, inputs):
    total = torch.zeros(3, 8)
    total += layer(inputs)
    total *= 0.5
    total.sum().backward()


if __name__ == "__main__":
    fit(EncoderBlock(), [(torch.randn(2, 5, 8), torch.randn(2, 5, 8))], 1)
    fit(CloningBlock(), [(torch.randn(2, 5, 8), torch.randn(2, 5, 8))], 1)
    conv_stage(torch.randn(2, 4, 6, 6))
    rms_stage(torch.randn(3, 8))
    normed_then_shifted(torch.randn(3, 8))
    residual_after_backward(torch.randn(3, 8))
    evaluate(EncoderBlock(), torch.randn(2, 5, 8))
    accumulate_features(nn.Linear(8, 8), torch.randn(3, 8))

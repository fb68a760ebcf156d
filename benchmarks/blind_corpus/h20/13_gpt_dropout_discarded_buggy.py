"""GG602 - F.dropout called in the residual connection with its result thrown away.

Mistake: the transformer layer's attn_connect/mlp_connect helpers call
F.dropout(dx, ...) as a statement; F.dropout is not in-place by default, so the
returned tensor is discarded and dx is added to the residual stream unchanged.
Silent effect: no dropout is ever applied - two forward passes in train mode
give identical outputs.

Modelled on: https://github.com/evintunador/templateGPT/issues/1
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    vocab_len: int = 64
    dim: int = 32
    num_heads: int = 4
    num_layers: int = 2
    max_seq_len: int = 16
    mlp_mult: int = 2
    dropout_rate: float = 0.3


class SelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.num_heads = cfg.num_heads
        self.qkv = nn.Linear(cfg.dim, 3 * cfg.dim, bias=False)
        self.out = nn.Linear(cfg.dim, cfg.dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.num_heads, -1).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.up = nn.Linear(cfg.dim, cfg.mlp_mult * cfg.dim)
        self.down = nn.Linear(cfg.mlp_mult * cfg.dim, cfg.dim)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dropout_rate = cfg.dropout_rate
        self.pre_attn_norm = nn.LayerNorm(cfg.dim)
        self.attn = SelfAttention(cfg)
        self.pre_mlp_norm = nn.LayerNorm(cfg.dim)
        self.mlp = MLP(cfg)

    def attn_connect(self, x):
        dx = self.attn(self.pre_attn_norm(x))
        F.dropout(dx, self.dropout_rate, self.training)  # bug: GG602
        return x + dx

    def mlp_connect(self, x):
        dx = self.mlp(self.pre_mlp_norm(x))
        F.dropout(dx, self.dropout_rate, self.training)
        return x + dx

    def forward(self, x):
        return self.mlp_connect(self.attn_connect(x))


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.token_embedder = nn.Embedding(cfg.vocab_len, cfg.dim)
        self.pos = nn.Parameter(torch.zeros(1, cfg.max_seq_len, cfg.dim))
        self.layers = nn.ModuleList(Layer(cfg) for _ in range(cfg.num_layers))
        self.final_norm = nn.LayerNorm(cfg.dim)

    def forward(self, tokens, targets=None):
        x = self.token_embedder(tokens) + self.pos[:, : tokens.shape[1]]
        for layer in self.layers:
            x = layer(x)
        logits = self.final_norm(x) @ self.token_embedder.weight.t()
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        return logits, loss


def train(model, data, optimizer, iters=3):
    model.train()
    for it in range(iters):
        x, y = data[:, :-1], data[:, 1:]
        _, loss = model(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iter {it} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    cfg = ModelConfig()
    model = Model(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randint(0, cfg.vocab_len, (4, cfg.max_seq_len + 1))
    train(model, data, optimizer)
    model.train()
    probe = data[:2, :-1]
    a, _ = model(probe)
    b, _ = model(probe)
    return torch.equal(a, b)


if __name__ == "__main__":
    identical = main()
    try:
        assert not identical, "train-mode outputs are identical: dropout never applied"
    except AssertionError as e:
        print(f"BUGGY: {e}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

"""GG106 (fixed) - rotary tables built under @torch.no_grad().

Fix: the cache helper uses @torch.no_grad() instead of @torch.inference_mode(); the
cos/sin buffers are ordinary constant tensors that autograd may save.

Mistake fixed: rotary-embedding tables built by an @torch.inference_mode() helper.
The buggy version fails with RuntimeError: Inference tensors cannot be saved for backward. ...
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def build_rope_cache(seq_len, head_dim, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(seq_len).float(), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos(), angles.sin()


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


class RotaryAttention(nn.Module):
    def __init__(self, dim=32, n_heads=4, max_len=64):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        cos, sin = build_rope_cache(max_len, self.head_dim)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def apply_rope(self, x, seq_len):
        cos, sin = self.cos[:seq_len], self.sin[:seq_len]
        return x * cos + rotate_half(x) * sin  # fixed: GG106

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k = self.apply_rope(q, t), self.apply_rope(k, t)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        attn = scores.masked_fill(mask, float("-inf")).softmax(-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, t, d))


class TinyLM(nn.Module):
    def __init__(self, vocab=40, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.attn = RotaryAttention(dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h = self.emb(tokens)
        h = h + self.attn(self.norm(h))
        return self.lm_head(h)


def main():
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    data = torch.randint(0, 40, (8, 17))
    for step in range(3):
        inputs, targets = data[:, :-1], data[:, 1:]
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")

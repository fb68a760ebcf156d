"""GG302 - in-place change of a tensor saved for backward, before backward().

A self-attention block zeroes the attention weights of padded key positions
with masked_fill_ *after* the softmax.  softmax keeps its output for the
backward pass, so modifying it in place bumps its version counter and the
backward fails with:
RuntimeError: one of the variables needed for gradient computation has been
modified by an inplace operation: ...
"""
import math
import sys

import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, dim, heads=2, dropout=0.0):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, pad_mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(C // self.heads)
        attn = scores.softmax(dim=-1)
        # do not attend to padding tokens
        attn.masked_fill_(pad_mask[:, None, None, :], 0.0)  # bug: GG302
        out = self.drop(attn) @ v
        return self.proj(out.transpose(1, 2).reshape(B, T, C))


class TinyEncoder(nn.Module):
    def __init__(self, vocab=50, dim=16, n_classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.attn = SelfAttention(dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        pad = tokens.eq(0)
        h = self.emb(tokens)
        h = self.norm(h + self.attn(h, pad))
        pooled = h.masked_fill(pad[..., None], 0).sum(1) / (~pad).sum(1, keepdim=True)
        return self.head(pooled)


def make_batch(bs=8, T=12, vocab=50):
    tokens = torch.randint(1, vocab, (bs, T))
    lengths = torch.randint(4, T + 1, (bs,))
    tokens[torch.arange(T)[None, :] >= lengths[:, None]] = 0
    return tokens, torch.randint(0, 2, (bs,))


def main():
    torch.manual_seed(0)
    model = TinyEncoder()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    for step in range(3):
        tokens, labels = make_batch()
        loss = crit(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")

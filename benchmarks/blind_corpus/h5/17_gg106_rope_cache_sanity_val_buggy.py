"""Category GG106 -- an inference tensor used in a computation autograd must save.
Status: buggy.
A small transformer block with rotary position embeddings caches its cos/sin tables
lazily on first use.  The training script runs a "sanity check" validation pass under
`torch.inference_mode()` before training, so the cache is filled with inference
tensors.  In the first training step `q * cos` has to save `cos` for backward, and
the forward raises
RuntimeError: Inference tensors cannot be saved for backward. ...
Modelled on: https://github.com/facebookresearch/dinov2/issues/472
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = dict(vocab=20, dim=32, heads=2, seq=8, batch=4, epochs=1, lr=3e-4, warmup_val_batches=1)


class Rotary(nn.Module):
    def __init__(self, head_dim, base=10000.0):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim),
                             persistent=False)
        self.seq_len_cached, self.cos_cached, self.sin_cached = None, None, None

    def forward(self, x):
        seq_len = x.shape[-2]
        if seq_len != self.seq_len_cached:
            t = torch.arange(seq_len, device=x.device).float()
            freqs = torch.outer(t, self.inv_freq)
            emb = torch.cat([freqs, freqs], dim=-1)
            self.seq_len_cached, self.cos_cached, self.sin_cached = seq_len, emb.cos(), emb.sin()
        return self.cos_cached, self.sin_cached


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


class RoPEAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.h, self.dh = heads, dim // heads
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.rotary = Rotary(self.dh)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        cos, sin = self.rotary(q)
        q = q * cos + rotate_half(q) * sin  # bug: GG106
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class TinyGPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.emb = nn.Embedding(c["vocab"], c["dim"])
        self.ln = nn.LayerNorm(c["dim"])
        self.attn = RoPEAttention(c["dim"], c["heads"])
        self.head = nn.Linear(c["dim"], c["vocab"])

    def forward(self, idx):
        x = self.emb(idx)
        x = x + self.attn(self.ln(x))
        return self.head(x)


@torch.inference_mode()
def validate(model, loader, max_batches):
    model.eval()
    losses = []
    for i, (x, y) in enumerate(loader):
        if i >= max_batches:
            break
        losses.append(F.cross_entropy(model(x).flatten(0, 1), y.flatten()).item())
    model.train()
    return sum(losses) / len(losses)


def fit(model, train_loader, val_loader, c):
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"])
    print(f"sanity val loss: {validate(model, val_loader, c['warmup_val_batches']):.3f}")
    for epoch in range(c["epochs"]):
        for step, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: train {loss.item():.3f} val {validate(model, val_loader, 2):.3f}")


def main():
    torch.manual_seed(0)
    c = CFG
    data = torch.randint(0, c["vocab"], (24, c["seq"] + 1))
    ds = TensorDataset(data[:, :-1], data[:, 1:])
    train_loader = DataLoader(ds, batch_size=c["batch"], shuffle=True)
    val_loader = DataLoader(ds, batch_size=c["batch"])
    fit(TinyGPT(c), train_loader, val_loader, c)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")

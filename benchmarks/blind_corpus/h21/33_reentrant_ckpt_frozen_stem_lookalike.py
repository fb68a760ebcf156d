"""GG112 look-alike - reentrant checkpoint fed by a trainable embedding.

A small text encoder wraps each GRU/MLP block in
checkpoint(..., use_reentrant=True). The first block's input is the output of a
trainable nn.Embedding, so it requires grad and the reentrant checkpoint keeps
every block in the graph; evaluation skips checkpointing under no_grad.
Nothing is wrong here.

Modelled on: https://github.com/mlfoundations/open_clip/issues/573
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class TextEncoder(nn.Module):
    def __init__(self, vocab=40, d=24, depth=3, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.cls = nn.Linear(d, classes)
        self.use_ckpt = True

    def forward(self, tokens):
        x = self.embed(tokens)
        for blk in self.blocks:
            if self.use_ckpt and torch.is_grad_enabled():
                x = checkpoint(blk, x, use_reentrant=True)
            else:
                x = blk(x)
        return self.cls(x.mean(dim=1))


def main():
    torch.manual_seed(0)
    model = TextEncoder()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 40, (8, 10))
    labels = torch.randint(0, 3, (8,))
    for step in range(3):
        loss = F.cross_entropy(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")
    assert all(p.grad is not None for p in model.blocks.parameters())
    model.eval()
    with torch.no_grad():
        print("eval acc", (model(tokens).argmax(-1) == labels).float().mean().item())


if __name__ == "__main__":
    main()
    print("OK")

"""GG112 look-alike - checkpointed blocks whose inputs do carry grad.

Category: GG112 (look-alike, correct code).
A small ViT checkpoints its transformer blocks with use_reentrant=True.
The raw images do not require grad, but the blocks receive the output of a
*trainable* patch embedding, so the checkpoint input requires grad and
every block's parameters get gradients.  A frozen-input side branch (a
fixed positional MLP fed by a constant grid) is checkpointed with
use_reentrant=False, which handles inputs without grad.
Modelled on: none found (timm-style grad checkpointing idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d, heads=2):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        y = self.n1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.mlp(self.n2(x))


class TinyViT(nn.Module):
    def __init__(self, d=16, depth=3, n_classes=5, patch=4, img=16):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, d, patch, patch)
        n = (img // patch) ** 2
        self.register_buffer("grid", torch.linspace(-1, 1, n).unsqueeze(-1))
        self.pos_mlp = nn.Sequential(nn.Linear(1, d), nn.Tanh(), nn.Linear(d, d))
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.head = nn.Linear(d, n_classes)
        self.grad_checkpointing = True

    def forward(self, img):
        x = self.patch_embed(img).flatten(2).transpose(1, 2)
        pos = checkpoint(self.pos_mlp, self.grid, use_reentrant=False)
        x = x + pos
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=True) if self.grad_checkpointing and self.training else blk(x)
        return self.head(x.mean(1))


def main():
    torch.manual_seed(0)
    model = TinyViT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(3):
        images, labels = torch.randn(4, 3, 16, 16), torch.randint(0, 5, (4,))
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")
    assert all(p.grad is not None for p in model.blocks.parameters())
    assert all(p.grad is not None for p in model.pos_mlp.parameters())


if __name__ == "__main__":
    main()
    print("OK")

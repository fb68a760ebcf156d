"""Look-alike: reentrant checkpoint whose input comes from a trainable layer.

Modelled on: https://github.com/bitsandbytes-foundation/bitsandbytes/issues/182 (counterpart)

The embeddings are trainable, so the hidden states entering each reentrant
checkpoint require grad and the checkpointed blocks' parameters receive
gradients normally.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + F.gelu(self.fc(self.norm(x)))


class Encoder(nn.Module):
    def __init__(self, vocab=40, dim=16, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, ids):
        h = self.embed(ids)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=True)
        return h


if __name__ == "__main__":
    torch.manual_seed(0)
    enc, head = Encoder(), nn.Linear(16, 1)
    opt = torch.optim.AdamW(list(enc.parameters()) + list(head.parameters()), lr=1e-3)
    loss = F.mse_loss(head(enc(torch.randint(0, 40, (2, 5))).mean(1)), torch.randn(2, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert enc.blocks[0].fc.weight.grad is not None
    print("OK")

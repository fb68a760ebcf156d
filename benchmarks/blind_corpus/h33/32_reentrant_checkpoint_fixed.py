"""Fixed: non-reentrant checkpointing, which tracks parameters used inside the block.

Modelled on: https://github.com/bitsandbytes-foundation/bitsandbytes/issues/182

The user enabled gradient checkpointing in a kohya_ss training run and got
"None of the inputs have requires_grad=True. Gradients will be None".  The
text-encoder embeddings are frozen, so the hidden states entering the first
checkpointed block do not require grad.  With the reentrant implementation
the block's output is then cut from the graph: the trainable adapter inside
the checkpointed block silently gets no gradient.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class LoRALinear(nn.Module):
    def __init__(self, dim, rank=2):
        super().__init__()
        self.base = nn.Linear(dim, dim)
        self.base.requires_grad_(False)
        self.down = nn.Linear(dim, rank, bias=False)
        self.up = nn.Linear(rank, dim, bias=False)
        nn.init.normal_(self.up.weight, std=0.02)

    def forward(self, x):
        return self.base(x) + self.up(self.down(x))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = LoRALinear(dim)

    def forward(self, x):
        return x + F.gelu(self.proj(self.norm(x)))


class TextEncoder(nn.Module):
    def __init__(self, vocab=40, dim=16, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.embed.requires_grad_(False)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.gradient_checkpointing = True

    def forward(self, ids):
        h = self.embed(ids)
        for blk in self.blocks:
            if self.gradient_checkpointing and self.training:
                h = checkpoint(blk, h, use_reentrant=False)
            else:
                h = blk(h)
        return h


def train_step(encoder, head, opt, ids, target):
    encoder.train()
    loss = F.mse_loss(head(encoder(ids).mean(1)), target)
    opt.zero_grad()
    loss.backward()
    opt.step()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    enc, head = TextEncoder(), nn.Linear(16, 1)
    params = [p for p in enc.parameters() if p.requires_grad] + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=1e-3)
    train_step(enc, head, opt, torch.randint(0, 40, (2, 5)), torch.randn(2, 1))
    g = enc.blocks[0].proj.down.weight.grad
    assert g is not None
    print("FIXED: ok")

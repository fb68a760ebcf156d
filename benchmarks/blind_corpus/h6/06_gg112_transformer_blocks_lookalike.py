"""GG112 look-alike (correct code): reentrant checkpointing whose inputs DO require grad.

A small transformer language model checkpoints each block with use_reentrant=True.
The blocks are fed the output of a trainable nn.Embedding (plus a learned positional
table), so the hidden states carry requires_grad=True and the reentrant checkpoint
builds its graph normally: every block parameter receives a gradient. The raw token
ids (integers, no grad) never enter a checkpoint directly.
Modelled on: none found (correct counterpart of the reports behind 04/05)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Config:
    vocab = 50
    dim = 32
    heads = 4
    n_layers = 2
    seq_len = 12
    batch = 4
    steps = 3
    grad_checkpointing = True


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.ln1(x)
        mask = torch.triu(torch.ones(x.size(1), x.size(1), dtype=torch.bool), 1)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.dim)
        self.pos = nn.Parameter(torch.zeros(1, cfg.seq_len, cfg.dim))
        self.blocks = nn.ModuleList(Block(cfg.dim, cfg.heads) for _ in range(cfg.n_layers))
        self.head = nn.Linear(cfg.dim, cfg.vocab)

    def forward(self, ids):
        x = self.tok(ids) + self.pos[:, : ids.size(1)]
        for block in self.blocks:
            if self.cfg.grad_checkpointing and self.training:
                x = checkpoint(block, x, use_reentrant=True)
            else:
                x = block(x)
        return self.head(x)


def train_step(model, optimizer, ids):
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    cfg = Config()
    torch.manual_seed(0)
    model = TinyLM(cfg)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(cfg.steps):
        ids = torch.randint(0, cfg.vocab, (cfg.batch, cfg.seq_len + 1))
        print(f"step {step}: loss {train_step(model, optimizer, ids):.4f}")
    missing = [n for n, p in model.named_parameters() if p.grad is None]
    assert not missing, missing


if __name__ == "__main__":
    main()
    print("OK")

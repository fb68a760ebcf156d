"""A frozen token embedding given a fresh trainable weight afterwards: nothing to report.

`freeze_pretrained` turns the token embedding off, then `load_vocabulary` replaces its
weight by a new `nn.Parameter` built from a table (a vocabulary extended after the freeze):
that parameter requires grad, so the embedding's output does too and every reentrant
checkpoint of the adapted blocks gets an input with history (checked with torch 2.13.0:
the adapters train). A parameter given to an existing module may make it trainable again,
so the freeze says nothing certain. Written for this corpus after
https://github.com/huggingface/peft/issues/137.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class AdaptedMLP(nn.Module):
    def __init__(self, width, rank):
        super().__init__()
        self.pretrained = nn.Linear(width, width)
        self.down = nn.Parameter(torch.randn(rank, width) * 0.1)
        self.up = nn.Parameter(torch.randn(width, rank) * 0.1)

    def forward(self, h):
        return h + torch.relu(self.pretrained(h) + h @ self.down.t() @ self.up.t())


class TinyCompleter(nn.Module):
    def __init__(self, vocab=50, width=16, depth=2, rank=2):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([AdaptedMLP(width, rank) for _ in range(depth)])
        self.out = nn.Linear(width, vocab)

    def forward(self, ids):
        h = self.tokens(ids)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=True)
        return self.out(h)


def freeze_pretrained(model):
    model.tokens.requires_grad_(False)


def load_vocabulary(model, table):
    model.tokens.weight = nn.Parameter(table)


def main():
    torch.manual_seed(0)
    model = TinyCompleter()
    freeze_pretrained(model)
    load_vocabulary(model, torch.randn(50, 16))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    model.train()
    for _ in range(3):
        ids = torch.randint(0, 50, (4, 9))
        loss = nn.functional.cross_entropy(model(ids[:, :-1]).reshape(-1, 50), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert all(block.down.grad is not None for block in model.blocks)


if __name__ == "__main__":
    main()

"""Look-alikes of low-rank adapters checkpointed behind a frozen embedding that stay silent.

Two next-token models with adapters holding `nn.Parameter`s of their own: the first freezes
its token embedding but checkpoints with `use_reentrant=False`; the second freezes only the
pretrained linear layer inside each adapter (in its constructor), so the embedding's output
still requires grad and reaches every reentrant checkpoint. In both the adapters train
(checked with torch 2.13.0). Written for this corpus after
https://github.com/huggingface/peft/issues/137.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class AdaptedMLP(nn.Module):
    def __init__(self, width, rank):
        super().__init__()
        self.pretrained = nn.Linear(width, width)
        self.pretrained.requires_grad_(False)
        self.down = nn.Parameter(torch.randn(rank, width) * 0.1)
        self.up = nn.Parameter(torch.randn(width, rank) * 0.1)

    def forward(self, h):
        return h + torch.relu(self.pretrained(h) + h @ self.down.t() @ self.up.t())


class NonReentrantCompleter(nn.Module):
    def __init__(self, vocab=50, width=16, depth=2, rank=2):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([AdaptedMLP(width, rank) for _ in range(depth)])
        self.out = nn.Linear(width, vocab)

    def forward(self, ids):
        h = self.tokens(ids)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=False)
        return self.out(h)


class TrainedEmbeddingCompleter(nn.Module):
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


def fit(model, steps=3):
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    model.train()
    for _ in range(steps):
        ids = torch.randint(0, 50, (4, 9))
        loss = nn.functional.cross_entropy(model(ids[:, :-1]).reshape(-1, 50), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert all(block.down.grad is not None for block in model.blocks)


def main():
    torch.manual_seed(0)
    non_reentrant = NonReentrantCompleter()
    non_reentrant.tokens.requires_grad_(False)
    fit(non_reentrant)
    fit(TrainedEmbeddingCompleter())


if __name__ == "__main__":
    main()

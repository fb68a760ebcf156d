"""Look-alikes of checkpointed blocks behind a frozen embedding that stay silent.

The same classifier, frozen in ways that may reach the checkpointed blocks themselves: a
helper also freezes each block through a loop variable (the checkpoint then has nothing to
lose), and a second model freezes its encoder as a whole. Whether the blocks' layers still
train is then not known from the freezes alone, so nothing is reported. A third model keeps
the frozen embedding but checkpoints with `use_reentrant=False`, which trains the blocks
(checked with torch 2.13.0). Written for this corpus after
https://github.com/huggingface/transformers/issues/21381.
"""

import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, 2 * width), nn.ReLU(), nn.Linear(2 * width, width))

    def forward(self, h):
        return h + self.ff(self.norm(h))


class Encoder(nn.Module):
    def __init__(self, width, depth, reentrant=True):
        super().__init__()
        self.blocks = nn.ModuleList(ResidualBlock(width) for _ in range(depth))
        self.reentrant = reentrant

    def forward(self, h):
        for block in self.blocks:
            if self.reentrant:
                h = checkpoint(block, h, use_reentrant=True)
            else:
                h = checkpoint(block, h, use_reentrant=False)
        return h


class SentenceClassifier(nn.Module):
    def __init__(self, vocab, width, classes, reentrant=True):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.encoder = Encoder(width, depth=2, reentrant=reentrant)
        self.head = nn.Linear(width, classes)

    def forward(self, ids):
        return self.head(self.encoder(self.tokens(ids)).mean(dim=1))


def freeze_embeddings_and_blocks(model):
    for weight in model.tokens.parameters():
        weight.requires_grad = False
    for block in model.encoder.blocks:
        for weight in block.parameters():
            weight.requires_grad = False


def freeze_encoder(model):
    model.tokens.requires_grad_(False)
    model.encoder.requires_grad_(False)


def train(model, steps=2):
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(steps):
        ids, labels = torch.randint(0, 30, (4, 5)), torch.randint(0, 3, (4,))
        optimizer.zero_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = nn.functional.cross_entropy(model(ids), labels)
        loss.backward()
        optimizer.step()


def main():
    torch.manual_seed(0)
    frozen_blocks = SentenceClassifier(30, 8, 3)
    freeze_embeddings_and_blocks(frozen_blocks)
    train(frozen_blocks)
    assert frozen_blocks.head.weight.grad is not None

    frozen_encoder = SentenceClassifier(30, 8, 3)
    freeze_encoder(frozen_encoder)
    train(frozen_encoder)
    assert frozen_encoder.head.weight.grad is not None

    non_reentrant = SentenceClassifier(30, 8, 3, reentrant=False)
    non_reentrant.tokens.requires_grad_(False)
    train(non_reentrant)
    assert all(p.grad is not None for p in non_reentrant.encoder.parameters())


if __name__ == "__main__":
    main()

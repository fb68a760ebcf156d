"""Reentrant checkpoints done by a small method that `forward` hands each block to.

`StackedNet.forward` runs its blocks through `self._run_block(block, h)`, which checkpoints
the block when the model was built with `checkpointing=True`. The first block gets the
model's own input: a batch made with `torch.randn`, which does not require grad. The
reentrant checkpoint's output then has no history, nor has anything computed from it, so
no block before the head gets a gradient (checked with torch 2.13.0: their `.grad` stays
None while the head trains). `run_block` is the same mistake through a function of the file.

Silent: the same helper behind an embedding (the first block's input then requires grad),
the non-reentrant checkpoint, and a helper that checkpoints a parameter-free activation.
Modelled on the reports that a model whose only input does not require grad trains nothing
inside its checkpoints (https://github.com/pytorch/pytorch/issues/6884,
https://github.com/Lyken17/pytorch-memonger/issues/4), written anew for this corpus.
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class StackedNet(nn.Module):
    def __init__(self, width, depth, checkpointing=True):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.head = nn.Linear(width, 2)
        self.checkpointing = checkpointing

    def _run_block(self, block, h):
        if self.checkpointing:
            return checkpoint(block, h, use_reentrant=True)  # expect: GG112
        return block(h)

    def forward(self, h):
        for block in self.blocks:
            h = self._run_block(block, h)
        return self.head(h)


def run_block(block, h):
    return checkpoint(block, h, use_reentrant=True)  # expect: GG112


class PlainNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Linear(width, width)
        self.head = nn.Linear(width, 2)

    def forward(self, h):
        return self.head(run_block(self.body, h))


class EmbeddedNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.embed = nn.Embedding(10, width)
        self.body = nn.Linear(width, width)
        self.head = nn.Linear(width, 2)

    def _run_block(self, block, h):
        return checkpoint(block, h, use_reentrant=True)

    def forward(self, tokens):
        return self.head(self._run_block(self.body, self.embed(tokens)))


class NonReentrantNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Linear(width, width)
        self.head = nn.Linear(width, 2)

    def _run_block(self, block, h):
        return checkpoint(block, h, use_reentrant=False)

    def forward(self, h):
        return self.head(self._run_block(self.body, h))


class ActivationNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.act = nn.GELU()
        self.head = nn.Linear(width, 2)

    def _run_block(self, block, h):
        return checkpoint(block, h, use_reentrant=True)

    def forward(self, h):
        return self.head(self._run_block(self.act, h))


def main():
    labels = torch.randint(0, 2, (4,))
    stacked = StackedNet(8, 3)
    nn.functional.cross_entropy(stacked(torch.randn(4, 8)), labels).backward()
    assert all(block.weight.grad is None for block in stacked.blocks)
    assert stacked.head.weight.grad is not None

    plain = PlainNet(8)
    nn.functional.cross_entropy(plain(torch.randn(4, 8)), labels).backward()
    assert plain.body.weight.grad is None

    embedded = EmbeddedNet(8)
    nn.functional.cross_entropy(embedded(torch.randint(0, 10, (4,))), labels).backward()
    assert embedded.body.weight.grad is not None

    non_reentrant = NonReentrantNet(8)
    nn.functional.cross_entropy(non_reentrant(torch.randn(4, 8)), labels).backward()
    assert non_reentrant.body.weight.grad is not None

    activation = ActivationNet(8)
    nn.functional.cross_entropy(activation(torch.randn(4, 8)), labels).backward()
    assert activation.head.weight.grad is not None


if __name__ == "__main__":
    main()

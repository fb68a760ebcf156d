"""Low-rank adapters in checkpointed blocks behind a frozen token embedding.

A small next-token model is tuned with low-rank adapters: each `AdaptedMLP` keeps its
pretrained `nn.Linear` fixed and adds two `nn.Parameter` matrices of its own, built in its
constructor. `freeze_pretrained` turns off the token embedding, and `forward` runs each
block under a reentrant checkpoint. The first block's only input is the frozen embedding's
output, which does not require grad: the reentrant checkpoint returns a tensor without
history, so the adapters never get a gradient (checked with torch 2.13.0: every adapter's
`.grad` stays None while the output head trains), and torch only warns "None of the inputs
have requires_grad=True".

The adapters' parameters belong to the blocks their constructor builds: they make no
frozen module trainable again.

Modelled on the report of LoRA weights left without gradients by gradient checkpointing
over frozen embeddings (https://github.com/huggingface/peft/issues/137), written anew for
this corpus.
"""

import warnings

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
            h = checkpoint(block, h, use_reentrant=True)  # expect: GG112
        return self.out(h)


def freeze_pretrained(model):
    model.tokens.requires_grad_(False)


def main():
    torch.manual_seed(0)
    model = TinyCompleter()
    freeze_pretrained(model)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    model.train()
    for _ in range(3):
        ids = torch.randint(0, 50, (4, 9))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            logits = model(ids[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 50), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert model.out.weight.grad is not None
    # Fails: the adapters inside the checkpointed blocks never get a gradient.
    adapters = [block.down for block in model.blocks]
    assert all(a.grad is not None for a in adapters), "the adapters did not train"


if __name__ == "__main__":
    main()

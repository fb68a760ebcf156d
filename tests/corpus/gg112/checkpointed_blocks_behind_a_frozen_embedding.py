"""A text classifier whose token embedding is frozen, with reentrant checkpoints per block.

`SentenceClassifier` embeds tokens, runs an `Encoder` of residual blocks and pools them into
a linear head. `freeze_embeddings` turns off the embedding's parameters (a pretrained
vocabulary kept fixed), and `Encoder.forward` checkpoints each block with the reentrant
variant when checkpointing is switched on. The first block then gets the output of a frozen
embedding, which does not require grad: its checkpoint returns a tensor without history,
so no block learns anything (checked with torch 2.13.0: every block's `.grad` stays None
while the head trains), and torch only warns "None of the inputs have requires_grad=True".
The freeze reaches the embedding alone, so the blocks' own layers certainly train.

Modelled on the report that freezing the first layers of a model, embeddings included,
together with gradient checkpointing silently disables the gradient of the rest
(https://github.com/huggingface/transformers/issues/21381), written anew for this corpus.
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
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList(ResidualBlock(width) for _ in range(depth))
        self.checkpointing = False

    def forward(self, h):
        for block in self.blocks:
            if self.checkpointing and self.training:
                h = checkpoint(block, h, use_reentrant=True)  # expect: GG112
            else:
                h = block(h)
        return h


class SentenceClassifier(nn.Module):
    def __init__(self, vocab, width, classes):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.encoder = Encoder(width, depth=2)
        self.head = nn.Linear(width, classes)

    def enable_checkpointing(self):
        self.encoder.checkpointing = True

    def forward(self, ids):
        return self.head(self.encoder(self.tokens(ids)).mean(dim=1))


def freeze_embeddings(model):
    for weight in model.tokens.parameters():
        weight.requires_grad = False


def main():
    torch.manual_seed(0)
    model = SentenceClassifier(vocab=30, width=8, classes=3)
    freeze_embeddings(model)
    model.enable_checkpointing()
    model.train()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(2):
        ids, labels = torch.randint(0, 30, (4, 5)), torch.randint(0, 3, (4,))
        optimizer.zero_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = nn.functional.cross_entropy(model(ids), labels)
        loss.backward()
        optimizer.step()
    assert all(p.grad is None for p in model.encoder.parameters())
    assert model.head.weight.grad is not None


if __name__ == "__main__":
    main()

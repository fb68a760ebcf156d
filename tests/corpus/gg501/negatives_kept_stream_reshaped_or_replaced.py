"""Look-alikes: a token stream a trainer keeps, whose shape may not stay (GG501).

As in `per_token_loss_of_windows_cut_from_a_kept_stream.py`, a trainer cuts windows from
`self.stream` and backpropagates a per-token loss, but here what the windows hold is not
certain. `ReplacingTrainer.load` stores another stream, of any shape, so `self.stream` may
be a single column (run below: a one-token window backpropagates fine). `ShrinkingTrainer`
keeps its stream, but the file calls `resize_`, which changes a tensor's shape in place
(here: down to one column), so no tensor of this file keeps a known shape.
"""

import torch
from torch import nn
from torch.nn import functional as F

VOCAB = 12


class ReplacingTrainer:
    def __init__(self, stream):
        self.stream = stream
        self.model = nn.Embedding(VOCAB, VOCAB)

    def load(self, stream):
        self.stream = stream

    def step(self, pos):
        chunk = self.stream[pos : pos + 2]
        logits = self.model(chunk[:-1])
        loss = F.cross_entropy(logits.view(-1, VOCAB), chunk[1:].reshape(-1), reduction="none")
        loss.backward()


class ShrinkingTrainer:
    def __init__(self, ids):
        self.ids = ids
        self.model = nn.Embedding(VOCAB, VOCAB)

    def shrink(self):
        self.ids.resize_(self.ids.size(0), 1)

    def step(self, pos):
        chunk = self.ids[pos : pos + 2]
        logits = self.model(chunk[:-1])
        loss = F.cross_entropy(logits.view(-1, VOCAB), chunk[1:].reshape(-1), reduction="none")
        loss.backward()


def main(single_column):
    trainer = ReplacingTrainer(torch.randint(0, VOCAB, (30, 4)))
    trainer.load(single_column)
    trainer.step(0)
    shrinking = ShrinkingTrainer(torch.randint(0, VOCAB, (30, 4)))
    shrinking.shrink()
    shrinking.step(0)
    print("ok")


if __name__ == "__main__":
    main(torch.randint(0, VOCAB, (30, 1)))

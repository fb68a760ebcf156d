"""A trainer class with its own `train()` keeps validation outputs with their graphs (GG204).

Modelled on https://github.com/OpenNMT/OpenNMT-py/issues/476: a translation trainer's
`validate()` put the model in eval mode and ran every validation batch with autograd on;
memory jumped after the first epoch, once validation began. Here the trainer defines
`train()` (the epoch loop) and `_train_epoch()` calls `self.model.train()`, the module's
mode switch: that call runs `nn.Module.train` on a `Seq2Seq`, never `Trainer.train`, so the
method that backpropagates is no caller of `validate()`. `validate()` keeps a tuple of the
logits and attention per batch, and each tuple keeps its batch's graph.

The look-alike `MetricsTrainer` has the same shape but keeps tuples of `.item()` floats and
detached tensors: nothing in them has a graph. (Look-alikes whose evaluation method does
run under a training method are in `negatives_train_override_callers.py`.)
"""

import torch
import torch.nn.functional as F
from torch import nn


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.GRU(8, 16, batch_first=True)
        self.out = nn.Linear(16, 5)

    def forward(self, src):
        hidden, _ = self.enc(src)
        attn = torch.softmax(hidden.sum(-1), dim=-1)
        return self.out(hidden), attn


def batches(n):
    for _ in range(n):
        yield torch.randn(2, 6, 8), torch.randint(0, 5, (2, 6))


class Trainer:
    def __init__(self):
        self.model = Seq2Seq()
        self.optim = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.kept = []

    def _train_epoch(self):
        self.model.train()
        for src, tgt in batches(3):
            logits, _ = self.model(src)
            loss = F.cross_entropy(logits.reshape(-1, 5), tgt.reshape(-1))
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()

    def validate(self):
        self.model.eval()
        self.kept = []
        for src, _ in batches(4):  # expect: GG204
            logits, attn = self.model(src)
            self.kept.append((logits, attn))
        return len(self.kept)

    def train(self, epochs):
        for _ in range(epochs):
            self._train_epoch()
            self.validate()


class MetricsTrainer:
    def __init__(self):
        self.model = Seq2Seq()
        self.optim = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scores = []

    def _train_epoch(self):
        self.model.train()
        for src, tgt in batches(3):
            logits, _ = self.model(src)
            loss = F.cross_entropy(logits.reshape(-1, 5), tgt.reshape(-1))
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()

    def validate(self):
        self.model.eval()
        self.scores = []
        for src, tgt in batches(4):
            logits, attn = self.model(src)
            loss = F.cross_entropy(logits.reshape(-1, 5), tgt.reshape(-1))
            self.scores.append((loss.item(), attn.detach()))
        return len(self.scores)

    def train(self, epochs):
        for _ in range(epochs):
            self._train_epoch()
            self.validate()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    trainer.train(1)
    logits, attn = trainer.kept[0]
    assert logits.grad_fn is not None and attn.grad_fn is not None, "graphs kept"

    metrics = MetricsTrainer()
    metrics.train(1)
    assert all(isinstance(loss, float) and attn.grad_fn is None for loss, attn in metrics.scores)
    # The buggy trainer's validation memory: every kept tuple still holds its graph.
    assert all(t[0].requires_grad and t[1].grad_fn is not None for t in trainer.kept)
    print("ok")

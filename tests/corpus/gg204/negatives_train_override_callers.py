"""Evaluation-shaped loops that do run under a training method (GG204 look-alikes).

Modelled on https://github.com/roytseng-tw/Detectron.pytorch/issues/104: a backbone
overrides `train(self, mode=True)` so that a training-mode switch leaves its frozen stages
in eval mode, reaching them by computed names (`getattr(self, "res%d" % i)`). Here that
override also refreshes class prototypes: `refresh()` puts the encoder in eval mode and keeps
each prototype's tensor in a list, with autograd on. That is no evaluation loop: `fit()`
calls `self.train()`, which on a `Learner` is the override (Python looks the name up on
`self`'s class, not on nn.Module), and then backpropagates through the prototypes. Since the
file reaches attributes by computed names, which attributes the loss reads is unknown, and
only the callers of `refresh()` tell that it runs under a training method: dropping
`self.train()` from the call sites of `Learner.train` because `self` is a module would flag
`refresh()`.

`SelfTrainer.predict()` is called by `fit()`, which trains on the tuples of predictions it
kept (pseudo-labels): the graphs are what the caller needs.
"""

import torch
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


class Learner(nn.Module):
    def __init__(self, frozen=1):
        super().__init__()
        self.res1 = nn.Linear(8, 8)
        self.res2 = nn.Linear(8, 4)
        self.frozen = frozen
        self.support = [torch.randn(3, 8) for _ in range(2)]
        self.protos = []

    def encode(self, x):
        return self.res2(torch.relu(self.res1(x)))

    def refresh(self):
        self.res2.eval()
        self.protos = []
        for shots in self.support:
            self.protos.append((self.res2(shots).mean(0), shots.size(0)))

    def train(self, mode=True):
        super().train(mode)
        for i in range(1, self.frozen + 1):
            getattr(self, "res%d" % i).eval()
        if mode:
            self.refresh()
        return self

    def fit(self, x, steps):
        optim = torch.optim.SGD(self.parameters(), lr=0.1)
        for _ in range(steps):
            self.train()
            centers = torch.stack([center for center, _ in self.protos])
            loss = torch.cdist(self.encode(x), centers).min(dim=1).values.mean()
            optim.zero_grad()
            loss.backward()
            optim.step()


class SelfTrainer:
    def __init__(self):
        self.model = Seq2Seq()
        self.optim = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.pseudo = []

    def predict(self, sources):
        self.model.eval()
        self.pseudo = []
        for src in sources:
            logits, attn = self.model(src)
            self.pseudo.append((logits, attn))

    def fit(self, sources):
        self.predict(sources)
        self.model.train()
        loss = 0.0
        for src, (logits, _) in zip(sources, self.pseudo):
            student, _ = self.model(src)
            loss = loss + (student - logits).pow(2).mean() + logits.pow(2).mean()
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    learner = Learner()
    before = learner.res2.weight.clone()
    learner.fit(torch.randn(5, 8), 2)
    assert not torch.equal(before, learner.res2.weight), "the prototypes' graphs were used"
    assert not learner.res1.training, "the override kept the frozen stage in eval mode"
    SelfTrainer().fit([torch.randn(2, 6, 8) for _ in range(2)])
    print("ok")

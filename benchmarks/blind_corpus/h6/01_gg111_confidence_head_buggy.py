"""GG111 (buggy): sigmoid output handed to BCEWithLogitsLoss.

Mistake: the confidence head of this descriptor matcher ends in nn.Sigmoid(), and
its output is then scored with nn.BCEWithLogitsLoss, which applies a sigmoid of its
own. The loss therefore sees sigmoid(sigmoid(z)), which lives in [0.5, 0.731]: the
"probability" can never approach 0 or 1 and the loss cannot fall below ~0.31 even on
perfectly separable labels.
Silent effect: no exception; the loss can never drop below ~0.31 and training stalls above it.
Modelled on: https://github.com/cvg/glue-factory/issues/89
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Config:
    dim: int = 16
    n_tokens: int = 32
    batch_size: int = 8
    steps: int = 80
    lr: float = 2e-1
    seed: int = 0


class TokenConfidence(nn.Module):
    """Predicts whether the current layer's match of each token is already final."""

    def __init__(self, dim):
        super().__init__()
        self.token = nn.Sequential(nn.Linear(dim, 1), nn.Sigmoid())
        self.loss_fn = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, desc):
        return self.token(desc).squeeze(-1)

    def loss(self, desc, correct):
        conf = self.token(desc.detach()).squeeze(-1)
        return self.loss_fn(conf, correct.float()).mean(-1)  # bug: GG111


class TinyMatcher(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.confidence = TokenConfidence(dim)

    def forward(self, desc):
        desc = torch.tanh(self.proj(desc))
        return desc, self.confidence(desc)


def make_batch(cfg, gen):
    desc = torch.randn(cfg.batch_size, cfg.n_tokens, cfg.dim, generator=gen)
    # a token's match is "final" when its first feature is positive: separable
    correct = desc[..., 0] > 0
    return desc * 3.0, correct


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.gen = torch.Generator().manual_seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.model = TinyMatcher(cfg.dim)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.history = []

    def train_step(self, desc, correct):
        self.model.train()
        self.optimizer.zero_grad()
        _, conf = self.model(desc)
        loss = self.model.confidence.loss(desc, correct).mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self):
        for step in range(self.cfg.steps):
            desc, correct = make_batch(self.cfg, self.gen)
            value = self.train_step(desc, correct)
            self.history.append(value)
            if step % 20 == 0:
                print(f"step {step:4d}  conf-loss {value:.4f}")
        return min(self.history[-20:])


def main():
    cfg = Config()
    trainer = Trainer(cfg)
    best = trainer.fit()
    floor = math.log1p(math.exp(-1.0))  # BCE of sigmoid(1.0) against label 1
    return best, floor


if __name__ == "__main__":
    best, floor = main()
    if best >= floor - 1e-3:
        print(f"BUGGY: confidence loss stuck at {best:.4f}, never below the double-sigmoid floor {floor:.4f}")
    else:
        raise SystemExit("NO BUG")

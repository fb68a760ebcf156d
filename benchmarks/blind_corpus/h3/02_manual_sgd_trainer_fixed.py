"""GG301 - fixed version.

The hand-rolled SGD update now runs under torch.no_grad(), so `-=` on the
leaf weights is not tracked by autograd.
"""
import sys

import torch
import torch.nn.functional as F


def init_params(d_in, d_hidden, n_out, seed=0):
    g = torch.Generator().manual_seed(seed)
    return {
        "w1": (torch.randn(d_in, d_hidden, generator=g) * 0.1).requires_grad_(),
        "b1": torch.zeros(d_hidden, requires_grad=True),
        "w2": (torch.randn(d_hidden, n_out, generator=g) * 0.1).requires_grad_(),
        "b2": torch.zeros(n_out, requires_grad=True),
    }


class Trainer:
    def __init__(self, params, lr=0.05, weight_decay=1e-4):
        self.params = params
        self.lr = lr
        self.weight_decay = weight_decay
        self.history = []

    def forward(self, x):
        p = self.params
        h = torch.tanh(x @ p["w1"] + p["b1"])
        return h @ p["w2"] + p["b2"]

    @torch.no_grad()
    def sgd_update(self):
        for name, p in self.params.items():
            grad = p.grad + self.weight_decay * p.detach()
            p -= self.lr * grad  # fixed: GG301
            p.grad = None

    def train_step(self, xb, yb):
        logits = self.forward(xb)
        loss = F.cross_entropy(logits, yb)
        loss.backward()
        self.sgd_update()
        return loss.item()

    def train_epoch(self, batches):
        losses = [self.train_step(xb, yb) for xb, yb in batches]
        self.history.append(sum(losses) / len(losses))
        return self.history[-1]


def make_batches(n=96, bs=32, d=10, k=4):
    x = torch.randn(n, d)
    y = (x[:, :k].argmax(dim=1))
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


def main():
    torch.manual_seed(1)
    trainer = Trainer(init_params(10, 32, 4))
    batches = make_batches()
    for epoch in range(3):
        avg = trainer.train_epoch(batches)
        print(f"[epoch {epoch}] mean loss {avg:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")

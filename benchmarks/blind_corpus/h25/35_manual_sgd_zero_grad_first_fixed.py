"""GG407 - .grad used before any backward() has run (it is still None). (fixed version)

A "PyTorch from scratch" two-layer network: weights are plain tensors with
requires_grad=True, wrapped in a small class with forward / zero_grad / step
methods.  The training loop clears the gradients at the *start* of each
iteration.  On the very first iteration no backward() has populated `.grad`
yet, so zeroing it fails:
  AttributeError: 'NoneType' object has no attribute 'zero_'

Fix: only clear gradients that exist (`if w.grad is not None`), as the
upstream fix did; before the first backward there is nothing to clear.

Modelled on: https://github.com/jcjohnson/pytorch-examples/pull/4
"""
import math

import torch

N, D_IN, H, D_OUT = 32, 10, 16, 1
LEARNING_RATE = 1e-3
ITERS = 5
dtype = torch.float
device = torch.device("cpu")


class TwoLayerNet:
    """Fully-connected ReLU network with manually managed weights."""

    def __init__(self, d_in, h, d_out):
        self.w1 = torch.randn(d_in, h, device=device, dtype=dtype) / math.sqrt(d_in)
        self.w2 = torch.randn(h, d_out, device=device, dtype=dtype) / math.sqrt(h)
        self.w1.requires_grad_(True)
        self.w2.requires_grad_(True)

    def parameters(self):
        return [self.w1, self.w2]

    def forward(self, x):
        return x.mm(self.w1).clamp(min=0).mm(self.w2)

    def zero_grad(self):
        for w in self.parameters():
            if w.grad is not None:  # fixed: GG407
                w.grad.zero_()

    @torch.no_grad()
    def step(self, lr):
        for w in self.parameters():
            w -= lr * w.grad


def make_data():
    x = torch.randn(N, D_IN, device=device, dtype=dtype)
    true_w = torch.randn(D_IN, D_OUT, device=device, dtype=dtype)
    y = x.mm(true_w) + 0.1 * torch.randn(N, D_OUT, device=device, dtype=dtype)
    return x, y


def train(model, x, y, iters, lr):
    history = []
    for t in range(iters):
        model.zero_grad()
        y_pred = model.forward(x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        model.step(lr)
        history.append(loss.item())
        print(f"iter {t}: loss {loss.item():.4f}")
    return history


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = TwoLayerNet(D_IN, H, D_OUT)
    history = train(model, x, y, ITERS, LEARNING_RATE)
    return history


if __name__ == "__main__":
    history = main()
    assert history[-1] < history[0]
    print("FIXED: ok")

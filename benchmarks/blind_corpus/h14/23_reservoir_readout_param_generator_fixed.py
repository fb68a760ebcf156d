"""GG610 - a generator of parameters iterated a second time sees nothing (FIXED).

Fix: the trainable parameters are materialised as a list.

An echo-state-network style model has a frozen reservoir and a trainable
readout.  setup_training() builds `trainable = filter(lambda p:
p.requires_grad, model.parameters())` once and passes it both to the Adam
optimizer and back to the training loop, which later hands the same object
to clip_grad_norm_.  The optimizer already consumed the iterator, so clipping
iterates over nothing: it returns a norm of 0 and leaves the (large)
gradients unclipped.  Silent: no error.

Modelled on: https://github.com/nschaetti/EchoTorch/issues/15
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--input_dim", type=int, default=3)
    p.add_argument("--reservoir", type=int, default=64)
    p.add_argument("--spectral_radius", type=float, default=0.9)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--max_norm", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=2)
    return p.parse_args([])


class ESN(nn.Module):
    def __init__(self, input_dim, reservoir, rho):
        super().__init__()
        self.w_in = nn.Parameter(torch.randn(reservoir, input_dim) * 0.5, requires_grad=False)
        w = torch.randn(reservoir, reservoir)
        w = w * (rho / torch.linalg.eigvals(w).abs().max())
        self.w = nn.Parameter(w, requires_grad=False)
        self.readout = nn.Linear(reservoir, 1)

    def forward(self, u):
        h = torch.zeros(u.size(0), self.w.size(0))
        states = []
        for t in range(u.size(1)):
            h = torch.tanh(u[:, t] @ self.w_in.t() + h @ self.w.t())
            states.append(h)
        return self.readout(torch.stack(states, 1)).squeeze(-1)


def setup_training(model, args):
    trainable = [p for p in model.parameters() if p.requires_grad]  # fixed: GG610
    optimizer = torch.optim.Adam(trainable, lr=args.lr)
    return optimizer, trainable


def train(model, loader, optimizer, trainable, args):
    clip_log = []
    for epoch in range(args.epochs):
        for u, y in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(u), y)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(trainable, args.max_norm)
            real = model.readout.weight.grad.norm().item()
            clip_log.append((float(norm), real))
            optimizer.step()
        print(f"epoch {epoch}: mse={loss.item():.4f} clip_norm={clip_log[-1][0]:.4f}")
    return clip_log


def main():
    torch.manual_seed(0)
    args = get_args()
    u = torch.randn(32, 15, args.input_dim)
    y = 5.0 * u.sum(-1).cumsum(1)
    loader = DataLoader(TensorDataset(u, y), batch_size=8)
    model = ESN(args.input_dim, args.reservoir, args.spectral_radius)
    optimizer, trainable = setup_training(model, args)
    return train(model, loader, optimizer, trainable, args), args


if __name__ == "__main__":
    log, args = main()
    assert all(n > 0.0 for n, _ in log) and all(r <= args.max_norm + 1e-5 for _, r in log)
    print("FIXED: ok")

"""GG501 look-alike - per-sample losses backpropagated WITH explicit weights.

A denoising script keeps an unreduced, per-sample loss vector so it can apply
importance weights (hard examples count more).  It calls ``backward`` on the
vector, but passes the weights as the ``gradient`` argument, which is exactly
the vector-Jacobian product of the weighted mean.  A second term is a
one-element tensor of shape (1,), which backward() also accepts.  Nothing is
wrong: no error, parameters update.

Modelled on: https://github.com/descriptinc/descript-audio-codec/issues/61 (correct variant)
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--hard-weight", type=float, default=3.0)
    return p.parse_args([])


class Denoiser(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, ch, 3, padding=1), nn.GELU(),
            nn.Conv1d(ch, ch, 3, padding=1), nn.GELU(),
            nn.Conv1d(ch, 1, 3, padding=1))

    def forward(self, x):
        return x - self.net(x)


def per_sample_loss(pred, clean):
    return F.l1_loss(pred, clean, reduction="none").mean(dim=(1, 2))


def importance_weights(losses, hard_weight):
    with torch.no_grad():
        w = torch.ones_like(losses)
        w[losses > losses.median()] = hard_weight
        return w / w.sum()


def train(model, loader, optimizer, args):
    history = []
    for epoch in range(args.epochs):
        for step, (noisy, clean) in enumerate(loader):
            optimizer.zero_grad()
            losses = per_sample_loss(model(noisy), clean)
            weights = importance_weights(losses, args.hard_weight)
            # explicit vector-Jacobian product: same as (weights * losses).sum().backward()
            losses.backward(gradient=weights, retain_graph=True)
            reg = sum(p.pow(2).sum() for p in model.parameters()).view(1) * 1e-4
            reg.backward()  # one-element tensor: allowed without gradient
            optimizer.step()
            history.append(float((weights * losses).sum().detach()))
        print(f"epoch {epoch}: last weighted loss {history[-1]:.4f}")
    return history


def main():
    args = get_args()
    torch.manual_seed(0)
    clean = torch.randn(32, 1, 64)
    noisy = clean + 0.3 * torch.randn_like(clean)
    loader = DataLoader(TensorDataset(noisy, clean), batch_size=args.batch_size, shuffle=True)
    model = Denoiser()
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, loader, optimizer, args)
    assert any(not torch.equal(b, p) for b, p in zip(before, model.parameters()))


if __name__ == "__main__":
    main()
    print("OK")

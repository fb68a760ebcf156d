"""Look-alike: Cog-style predictor whose predict() is under inference_mode,
but all gradient work happens in a separate, undecorated fit() method.

Modelled on: https://github.com/replicate/cog/issues/1681 (counterpart)

Here `@torch.inference_mode()` only wraps pure forward passes; the latent
optimisation that needs autograd runs in `fit()`, which is called before
`predict()` and is not under any grad-disabling context.  This is correct.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self, latent_dim=8, out_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.Tanh(), nn.Linear(32, out_dim))

    def forward(self, z):
        return self.net(z)


class BasePredictor:
    def setup(self):
        raise NotImplementedError

    def predict(self, **kwargs):
        raise NotImplementedError


def reconstruction_loss(pred, target):
    return F.mse_loss(pred, target)


class Predictor(BasePredictor):
    def setup(self, latent_dim=8, out_dim=16):
        torch.manual_seed(0)
        self.latent_dim = latent_dim
        self.decoder = Decoder(latent_dim, out_dim)
        self.decoder.eval()
        for p in self.decoder.parameters():
            p.requires_grad_(False)
        self.latent = None

    def fit(self, target, steps=20, lr=0.05):
        latent = torch.zeros(target.shape[0], self.latent_dim, requires_grad=True)
        opt = torch.optim.Adam([latent], lr=lr)
        first = None
        for _ in range(steps):
            opt.zero_grad()
            loss = reconstruction_loss(self.decoder(latent), target)
            loss.backward()
            opt.step()
            first = loss.item() if first is None else first
        self.latent = latent.detach()
        return first, loss.item()

    @torch.inference_mode()
    def predict(self, target):
        out = self.decoder(self.latent)
        return out, reconstruction_loss(out, target).item()


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.05)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    predictor = Predictor()
    predictor.setup()
    target = torch.randn(4, 16)
    first, last = predictor.fit(target, steps=args.steps, lr=args.lr)
    out, err = predictor.predict(target)
    assert last < first and out.shape == target.shape
    print("OK")


if __name__ == "__main__":
    main([])

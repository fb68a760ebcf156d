"""Cog-style predictor that does test-time optimisation inside predict().

Modelled on: https://github.com/replicate/cog/issues/1681

The user's prediction flow needs a few gradient steps (it fits a small
style/offset vector to the input before rendering the output).  The
`predict` method was decorated with `@torch.inference_mode()` (as Cog
templates suggest for serving), so every tensor produced inside it, including
the loss of the inner optimisation loop, has no autograd history.
`loss.backward()` then fails with "element 0 of tensors does not require grad
and does not have a grad_fn"; forcing `requires_grad_(True)` on the loss only
hid the error and nothing was updated.
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

    def _invert(self, target, steps, lr):
        latent = torch.zeros(target.shape[0], self.latent_dim, requires_grad=True)
        opt = torch.optim.Adam([latent], lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            loss = reconstruction_loss(self.decoder(latent), target)
            loss.backward()
            opt.step()
        return latent.detach()

    @torch.inference_mode()  # bug: GG101
    def predict(self, target, steps=20, lr=0.05):
        latent = self._invert(target, steps, lr)
        return self.decoder(latent)


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
    try:
        out = predictor.predict(target, steps=args.steps, lr=args.lr)
        print("FIXED: ok", out.shape)
    except RuntimeError as e:
        print(f"BUGGY: {e}")


if __name__ == "__main__":
    main([])

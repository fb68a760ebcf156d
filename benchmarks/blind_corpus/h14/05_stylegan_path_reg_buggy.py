"""GG503 - gradient from torch.autograd.grad used in a loss without create_graph=True.

A StyleGAN-like generator is trained with a lazy path-length regulariser.
g_path_regularize() takes the gradient of the noisy image w.r.t. the latents
with torch.autograd.grad but without create_graph=True, so the returned
gradient is a plain constant tensor.  The path penalty built from it has no
grad_fn and the regularisation step's backward raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/rosinality/stylegan2-pytorch/issues/32
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--latent", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--iter", type=int, default=4)
    p.add_argument("--g_reg_every", type=int, default=2)
    p.add_argument("--path_regularize", type=float, default=2.0)
    p.add_argument("--path_batch_shrink", type=int, default=2)
    return p.parse_args([])


class MappingNet(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim), nn.LeakyReLU(0.2), nn.Linear(dim, dim))

    def forward(self, z):
        return self.net(z)


class Generator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.style = MappingNet(dim)
        self.synth = nn.Sequential(nn.Linear(dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 3 * 8 * 8))

    def forward(self, z, return_latents=False):
        w = self.style(z)
        img = torch.tanh(self.synth(w)).view(-1, 3, 8, 8)
        return (img, w) if return_latents else (img, None)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


def g_path_regularize(fake_img, latents, mean_path_length, decay=0.01):
    noise = torch.randn_like(fake_img) / math.sqrt(fake_img.shape[2] * fake_img.shape[3])
    grad, = torch.autograd.grad(outputs=(fake_img * noise).sum(), inputs=latents)  # bug: GG503
    path_lengths = torch.sqrt(grad.pow(2).sum(1))
    path_mean = mean_path_length + decay * (path_lengths.mean() - mean_path_length)
    path_penalty = (path_lengths - path_mean).pow(2).mean()
    return path_penalty, path_mean.detach(), path_lengths


def train(args, generator, discriminator, g_optim, d_optim):
    mean_path_length = torch.tensor(0.0)
    loss_dict = {}
    for i in range(args.iter):
        real = torch.rand(args.batch, 3, 8, 8) * 2 - 1
        z = torch.randn(args.batch, args.latent)

        fake, _ = generator(z)
        d_loss = F.softplus(discriminator(fake.detach())).mean() + F.softplus(-discriminator(real)).mean()
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()

        fake, _ = generator(z)
        g_loss = F.softplus(-discriminator(fake)).mean()
        g_optim.zero_grad()
        g_loss.backward()
        g_optim.step()
        loss_dict["d"], loss_dict["g"] = d_loss.item(), g_loss.item()

        if i % args.g_reg_every == 0:
            path_batch = max(1, args.batch // args.path_batch_shrink)
            fake_img, latents = generator(torch.randn(path_batch, args.latent), return_latents=True)
            path_loss, mean_path_length, path_lengths = g_path_regularize(fake_img, latents, mean_path_length)
            generator.zero_grad()
            weighted = args.path_regularize * args.g_reg_every * path_loss
            weighted.backward()
            g_optim.step()
            loss_dict["path"] = path_loss.item()
        print(f"iter {i}: " + ", ".join(f"{k}={v:.3f}" for k, v in loss_dict.items()))


def main():
    torch.manual_seed(0)
    args = parse()
    g, d = Generator(args.latent), Discriminator()
    g_optim = torch.optim.Adam(g.parameters(), lr=2e-3, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(d.parameters(), lr=2e-3, betas=(0.0, 0.99))
    train(args, g, d, g_optim, d_optim)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

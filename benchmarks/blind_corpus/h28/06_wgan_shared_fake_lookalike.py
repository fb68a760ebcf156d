"""Conditional GAN step with two separate generator backward() calls.

Modelled on: https://github.com/eriklindernoren/PyTorch-GAN/issues/6 (counterpart)

Looks like the WGAN bug: one fake batch feeds the critic step and then the
generator step, and the generator calls backward() twice over graphs that
share the generator's forward pass.  Here the critic sees fake.detach(), and
the first generator backward() passes retain_graph=True, so the second one
(the reconstruction term) still finds every saved tensor.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--dim", type=int, default=12)
    p.add_argument("--lambda_rec", type=float, default=10.0)
    p.add_argument("--steps", type=int, default=3)
    return p.parse_args(argv)


class Translator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 24), nn.ReLU(), nn.Linear(24, dim))

    def forward(self, x):
        return self.net(x)


class Critic(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2 * dim, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))

    def forward(self, src, tgt):
        return self.net(torch.cat([src, tgt], dim=1))


class Pix2PixLike:
    def __init__(self, opt):
        self.opt = opt
        self.netG = Translator(opt.dim)
        self.netD = Critic(opt.dim)
        self.optG = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optD = torch.optim.Adam(self.netD.parameters(), lr=1e-3)

    def set_input(self, src, tgt):
        self.real_A, self.real_B = src, tgt

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        pred_fake = self.netD(self.real_A, self.fake_B.detach())
        pred_real = self.netD(self.real_A, self.real_B)
        loss = F.softplus(pred_fake).mean() + F.softplus(-pred_real).mean()
        loss.backward()

    def backward_G(self):
        pred_fake = self.netD(self.real_A, self.fake_B)
        loss_adv = F.softplus(-pred_fake).mean()
        loss_adv.backward(retain_graph=True)
        loss_rec = F.l1_loss(self.fake_B, self.real_B) * self.opt.lambda_rec
        loss_rec.backward()

    def optimize_parameters(self):
        self.forward()
        self.optD.zero_grad()
        self.backward_D()
        self.optD.step()
        self.optG.zero_grad()
        self.backward_G()
        self.optG.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = get_args([])
    model = Pix2PixLike(opt)
    for _ in range(opt.steps):
        src = torch.randn(opt.batch_size, opt.dim)
        model.set_input(src, src.flip(1))
        model.optimize_parameters()
    print("OK")

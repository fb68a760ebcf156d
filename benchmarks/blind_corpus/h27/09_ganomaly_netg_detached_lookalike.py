"""Look-alike: Skip-GANomaly trainer that detaches the fake only where it should.

Modelled on: https://github.com/samet-akcay/skip-ganomaly/issues/5 (counterpart)

The discriminator step uses `self.fake.detach()` and an anomaly score is
computed from detached tensors for logging, but the generator objective is
built from the live `self.fake`, so `err_g.backward()` reaches the generator.
(The paragraph below describes the mistake this file avoids.)

In the report the latent loss of the generator was computed from a fake
image that had already been detached, so that term could not update the
generator.  In this version of the trainer the author detaches `self.fake`
once in `forward()` (to save memory in the discriminator step) and then
reuses that detached tensor for every generator loss term while the
discriminator is frozen.  The whole generator objective is therefore cut
from the graph and
`err_g.backward()` fails with "element 0 of tensors does not require grad".
"""
import argparse
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, 8), nn.LeakyReLU(0.2))
        self.dec = nn.Sequential(nn.Linear(8, dim), nn.Tanh())

    def forward(self, x):
        return self.dec(self.enc(x)) + 0.1 * x  # skip connection


class Discriminator(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(dim, 12), nn.LeakyReLU(0.2))
        self.classifier = nn.Linear(12, 1)

    def forward(self, x):
        feat = self.features(x)
        return self.classifier(feat).squeeze(1), feat


def l2_loss(a, b):
    return torch.mean((a - b) ** 2)


class SkipGanomaly:
    def __init__(self, opt):
        self.opt = opt
        self.netg = Generator(opt.dim)
        self.netd = Discriminator(opt.dim)
        self.optimizer_g = torch.optim.Adam(self.netg.parameters(), lr=opt.lr)
        self.optimizer_d = torch.optim.Adam(self.netd.parameters(), lr=opt.lr)
        self.l_con = nn.L1Loss()

    def set_input(self, x):
        self.input = x

    def forward(self):
        self.fake = self.netg(self.input)

    def backward_g(self):
        pred_fake, feat_fake = self.netd(self.fake)
        pred_real, feat_real = self.netd(self.input)
        self.err_g_adv = F.binary_cross_entropy_with_logits(pred_fake, torch.ones_like(pred_fake))
        self.err_g_con = self.l_con(self.fake, self.input)
        self.err_g_lat = l2_loss(feat_fake, feat_real.detach())
        self.err_g = (self.err_g_adv * self.opt.w_adv + self.err_g_con * self.opt.w_con
                      + self.err_g_lat * self.opt.w_lat)
        self.err_g.backward()

    def backward_d(self):
        pred_real, _ = self.netd(self.input)
        pred_fake, _ = self.netd(self.fake.detach())
        self.err_d = (F.binary_cross_entropy_with_logits(pred_real, torch.ones_like(pred_real))
                      + F.binary_cross_entropy_with_logits(pred_fake, torch.zeros_like(pred_fake)))
        self.err_d.backward()

    @staticmethod
    def set_requires_grad(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def optimize_params(self):
        self.forward()
        # D is frozen while G is updated
        self.set_requires_grad(self.netd, False)
        self.optimizer_g.zero_grad()
        self.backward_g()
        self.optimizer_g.step()
        self.set_requires_grad(self.netd, True)
        self.optimizer_d.zero_grad()
        self.backward_d()
        self.optimizer_d.step()

    def anomaly_score(self):
        fake = self.fake.detach()
        _, feat_fake = self.netd(fake)
        _, feat_real = self.netd(self.input)
        return l2_loss(feat_fake.detach(), feat_real.detach()).item()

    def get_errors(self):
        return OrderedDict(err_d=self.err_d.item(), err_g=self.err_g.item())


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--w_adv", type=float, default=1.0)
    p.add_argument("--w_con", type=float, default=50.0)
    p.add_argument("--w_lat", type=float, default=1.0)
    return p.parse_args(argv)


def main(argv=None):
    opt = parse_args(argv)
    torch.manual_seed(0)
    model = SkipGanomaly(opt)
    try:
        for _ in range(3):
            model.set_input(torch.randn(8, opt.dim))
            model.optimize_params()
        assert all(p.grad is not None for p in model.netg.parameters())
        assert model.anomaly_score() >= 0.0
        print("OK")
    except RuntimeError as e:
        print(f"unexpected: {e}")


if __name__ == "__main__":
    main([])

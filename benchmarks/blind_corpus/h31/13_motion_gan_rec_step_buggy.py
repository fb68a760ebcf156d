"""1-D motion GAN stage with adversarial and reconstruction generator updates.

Modelled on: https://github.com/PeizhuoLi/ganimator/issues/5

In the reported code the generator update calls
`loss_total.backward(retain_graph=True)` and `optimizerG.step()`, and the
reconstruction update afterwards backpropagates `loss_rec` through the same
generator output `fake_res` (that is why the graph was retained).  But the
generator's convolution weights were saved in that graph and `optimizerG.step()`
has already updated them in place, so the second backward() fails with "one of
the variables needed for gradient computation has been modified by an inplace
operation".  This class keeps the same organisation (forward / backward_G /
backward_D / optimize_parameters with gen, disc, rec switches).
"""
import argparse

import torch
import torch.nn as nn


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--channels", type=int, default=12)
    p.add_argument("--frames", type=int, default=32)
    p.add_argument("--lr_g", type=float, default=1e-4)
    p.add_argument("--lr_d", type=float, default=1e-4)
    p.add_argument("--lambda_rec", type=float, default=50.0)
    return p.parse_args(argv)


def conv1d_model(channels, last_active=None):
    layers = []
    for i in range(len(channels) - 1):
        layers.append(nn.Conv1d(channels[i], channels[i + 1], 5, padding=2))
        if i < len(channels) - 2:
            layers.append(nn.LeakyReLU(0.2))
    if last_active is not None:
        layers.append(last_active)
    return nn.Sequential(*layers)


class GANStage:
    def __init__(self, gen, disc, args):
        self.gen, self.disc, self.args = gen, disc, args
        self.optimizerG = torch.optim.Adam(gen.parameters(), lr=args.lr_g)
        self.optimizerD = torch.optim.Adam(disc.parameters(), lr=args.lr_d)
        self.mse = nn.MSELoss()
        self.loss_G = self.loss_D = self.loss_rec = torch.tensor(0.0)

    def disc_requires_grad_(self, flag):
        for p in self.disc.parameters():
            p.requires_grad = flag

    def forward(self, noise, real, img_base):
        self.fake_res = self.gen(noise + img_base) + img_base
        self.real_res = real

    def backward_D(self):
        pred_real = self.disc(self.real_res)
        pred_fake = self.disc(self.fake_res.detach())
        self.loss_D = 0.5 * (self.mse(pred_real, torch.ones_like(pred_real))
                             + self.mse(pred_fake, torch.zeros_like(pred_fake)))
        self.loss_D.backward()

    def backward_G(self):
        pred_fake = self.disc(self.fake_res)
        self.loss_G = self.mse(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward(retain_graph=True)

    def optimize_parameters(self, gen=True, disc=True, rec=True):
        if gen:
            self.disc_requires_grad_(False)
            self.optimizerG.zero_grad()
            self.backward_G()
            self.optimizerG.step()  # bug: GG205
        if disc:
            self.disc_requires_grad_(True)
            self.optimizerD.zero_grad()
            self.backward_D()
            self.optimizerD.step()
        if rec:
            self.optimizerG.zero_grad()
            self.loss_rec = self.mse(self.fake_res, self.real_res)
            (self.loss_rec * self.args.lambda_rec).backward()
            self.optimizerG.step()


def joint_train(stage, real, steps=3):
    for _ in range(steps):
        img_base = torch.zeros_like(real)
        noise = torch.randn_like(real)
        stage.forward(noise, real, img_base)
        stage.optimize_parameters(gen=True, disc=True, rec=True)
    return stage.loss_G.item(), stage.loss_D.item(), stage.loss_rec.item()


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    gen = conv1d_model([args.channels, 32, 32, args.channels])
    disc = conv1d_model([args.channels, 32, 1])
    real = torch.randn(1, args.channels, args.frames)
    return joint_train(GANStage(gen, disc, args), real)


if __name__ == "__main__":
    try:
        print("no error", main([]))
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0][:150])

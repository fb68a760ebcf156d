"""A pix2pix-style model that updates the critic several times per generated batch (WGAN):
`forward()` leaves the batch on `self.fake_B` once, then a loop calls `backward_D()`
`n_critic` times. Without `.detach()` where the critic scores it, the first call's backward
frees the generator's graph and the second call raises "Trying to backward through the graph
a second time" (GG202, reported at the backward inside the method the loop calls).

Source (rewritten in our own words, structure kept):
https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439 - a WGAN-GP variant of
pix2pix "updating D multiple times before updating G" hits the error; the library's
`backward_D` detaches the fake batch.

Look-alikes: the critic scores the detached batch, or the loop generates a new batch on
every iteration.
"""

import torch
from torch import nn


class WganModel:
    def __init__(self, n_critic=3):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.n_critic = n_critic

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        pred_real = self.netD(torch.cat((self.real_A, self.real_B), 1))
        self.loss_D = pred_fake.mean() - pred_real.mean()
        self.loss_D.backward()  # expect: GG202

    def backward_D_detached(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B.detach()), 1))
        pred_real = self.netD(torch.cat((self.real_A, self.real_B), 1))
        self.loss_D = pred_fake.mean() - pred_real.mean()
        self.loss_D.backward()

    def optimize_parameters(self):
        self.forward()
        for _ in range(self.n_critic):
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()

    def optimize_detached(self):
        self.forward()
        for _ in range(self.n_critic):
            self.optimizer_D.zero_grad()
            self.backward_D_detached()
            self.optimizer_D.step()

    def optimize_reforward(self):
        for _ in range(self.n_critic):
            self.forward()
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()


if __name__ == "__main__":
    m = WganModel()
    m.set_input(torch.randn(2, 4), torch.randn(2, 4))
    try:
        m.optimize_parameters()
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    m.optimize_detached()
    m.optimize_reforward()

"""GAN model objects whose steps live in methods sharing state on `self` (GG202): `forward()`
leaves the generated batch on `self.fake_B`, `backward_D()` and `backward_G()` each
backpropagate a loss computed from it, and `optimize_parameters()` calls them in order.
Without `.detach()` in the discriminator's step, its backward frees the generator's graph
and the generator's backward raises "Trying to backward through the graph a second time".

Sources (rewritten in our own words, structure kept):
* https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix (models/pix2pix_model.py and
  cycle_gan_model.py): `backward_D` scores `self.fake_B.detach()` ("stop backprop to the
  generator by detaching fake_B"); CycleGAN's `backward_D_basic(netD, real, fake)` detaches
  its `fake` argument; `optimize_parameters` runs forward, then G's step, then D's.
* https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439 and
  https://github.com/KupynOrest/DeblurGAN/issues/56 - the error when the detach is missing.

The look-alikes keep the structure and cut or rebuild the graph the way real code does:
the detach in `backward_D` (or an in-place `detach_()` after its backward), a fresh `forward()` before the generator's step, the generator
step first and the discriminator on a detached batch, `retain_graph=True`, and the same
steps written in one method that calls `forward()` between them. Every class runs (or
raises) under torch 2.13.0 as `__main__` checks.
"""

import torch
from torch import nn


class Pix2PixGFirst:
    """The library's order without its detach: G's step, then D's on the same batch."""
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)


    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()  # expect: GG202

    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        loss_fake = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        pred_real = self.netD(torch.cat((self.real_A, self.real_B), 1))
        loss_real = self.criterion(pred_real, torch.ones_like(pred_real))
        self.loss_D = (loss_fake + loss_real) * 0.5
        self.loss_D.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()


class Pix2PixDetached:
    """The library's code: the discriminator scores the detached batch."""
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)


    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B.detach()), 1))
        loss_fake = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        pred_real = self.netD(torch.cat((self.real_A, self.real_B), 1))
        loss_real = self.criterion(pred_real, torch.ones_like(pred_real))
        self.loss_D = (loss_fake + loss_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


class Pix2PixReforward:
    """No detach, but the generator's step runs on a batch generated again."""
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)


    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_D = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        self.loss_D.backward()

    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.forward()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def inline_steps(self):
        self.forward()
        self.netD(torch.cat((self.real_A, self.fake_B), 1)).mean().backward()
        self.forward()
        self.netD(torch.cat((self.real_A, self.fake_B), 1)).mean().backward()


class Pix2PixRetained:
    """No detach, but the discriminator's backward keeps the graph."""
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)


    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_D = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        self.loss_D.backward(retain_graph=True)

    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.optimizer_D.step()


class CycleStyleBasic:
    """CycleGAN's shape: a helper that detaches the batch it is given."""
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)


    def backward_D_basic(self, netD, real, fake):
        pred_real = netD(torch.cat((self.real_A, real), 1))
        pred_fake = netD(torch.cat((self.real_A, fake.detach()), 1))
        loss_D = (
            self.criterion(pred_real, torch.ones_like(pred_real))
            + self.criterion(pred_fake, torch.zeros_like(pred_fake))
        ) * 0.5
        loss_D.backward()
        return loss_D

    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        self.loss_D = self.backward_D_basic(self.netD, self.real_B, self.fake_B)
        self.optimizer_D.step()


class Pix2PixDetachedInPlace:
    """No detach where D scores the batch, but D's step detaches it in place afterwards."""

    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_D = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        self.loss_D.backward()
        self.fake_B.detach_()

    def backward_G(self):
        pred_fake = self.netD(torch.cat((self.real_A, self.fake_B), 1))
        self.loss_G = self.criterion(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


class DataOnlyState:
    """Two steps through state that has no graph: the real batch set by `set_input`."""
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.netD = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)
        self.criterion = nn.BCEWithLogitsLoss()

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)


    def step_D(self):
        pred = self.netD(torch.cat((self.real_A, self.real_B), 1))
        pred.mean().backward()

    def step_again(self):
        pred = self.netD(torch.cat((self.real_B, self.real_A), 1))
        pred.pow(2).mean().backward()

    def optimize_parameters(self):
        self.optimizer_D.zero_grad()
        self.step_D()
        self.step_again()
        self.optimizer_D.step()


if __name__ == "__main__":
    a, b = torch.randn(2, 4), torch.randn(2, 4)
    buggy = Pix2PixGFirst()
    buggy.set_input(a, b)
    try:
        buggy.optimize_parameters()
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second-backward error")
    for cls in (
        Pix2PixDetached,
        Pix2PixReforward,
        Pix2PixRetained,
        CycleStyleBasic,
        Pix2PixDetachedInPlace,
        DataOnlyState,
    ):
        model = cls()
        model.set_input(a, b)
        model.optimize_parameters()
    reforward = Pix2PixReforward()
    reforward.set_input(a, b)
    reforward.inline_steps()

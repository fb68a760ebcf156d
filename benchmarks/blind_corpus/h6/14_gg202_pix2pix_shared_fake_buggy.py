"""GG202 (buggy): generator graph freed by the discriminator's backward, then reused.

Mistake: in a pix2pix-style model class, forward() stores self.fake_B = netG(real_A).
backward_D() scores self.fake_B *without* .detach(), so loss_D.backward() walks all
the way through the generator and frees its saved tensors. backward_G() then scores
the same self.fake_B again and calls backward(), which needs the generator part of the
graph a second time.
Error raised by torch: RuntimeError: Trying to backward through the graph a second time
(or directly access saved tensors after they have already been freed) ...
Modelled on: https://github.com/pytorch/xla/issues/1961
"""
import sys
import tempfile
import os

import torch
import torch.nn as nn

OPT = {"ngf": 8, "ndf": 8, "lambda_L1": 100.0, "lr": 2e-4, "beta1": 0.5, "n_iter": 3}


def make_generator(ngf):
    return nn.Sequential(nn.Conv2d(3, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(True),
                         nn.Conv2d(ngf, ngf, 3, padding=1), nn.ReLU(True),
                         nn.Conv2d(ngf, 3, 3, padding=1), nn.Tanh())


def make_discriminator(ndf):
    return nn.Sequential(nn.Conv2d(6, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
                         nn.Conv2d(ndf, 1, 4, 1, 1))


class Pix2PixModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG = make_generator(opt["ngf"])
        self.netD = make_discriminator(opt["ndf"])
        self.criterionGAN = nn.BCEWithLogitsLoss()
        self.criterionL1 = nn.L1Loss()
        betas = (opt["beta1"], 0.999)
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt["lr"], betas=betas)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt["lr"], betas=betas)
        self.losses = {}

    def set_input(self, batch):
        self.real_A, self.real_B = batch["A"], batch["B"]

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    @staticmethod
    def set_requires_grad(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def gan_loss(self, pred, is_real):
        target = torch.ones_like(pred) if is_real else torch.zeros_like(pred)
        return self.criterionGAN(pred, target)

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        loss_D_fake = self.gan_loss(self.netD(fake_AB), False)
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        loss_D_real = self.gan_loss(self.netD(real_AB), True)
        self.loss_D = 0.5 * (loss_D_fake + loss_D_real)
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        self.loss_G_GAN = self.gan_loss(self.netD(fake_AB), True)
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt["lambda_L1"]
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()  # bug: GG202

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad(self.netD, True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.losses = {"D": self.loss_D.item(), "G_GAN": self.loss_G_GAN.item(), "G_L1": self.loss_G_L1.item()}

    def save(self, path):
        torch.save({"G": self.netG.state_dict(), "D": self.netD.state_dict()}, path)


def main():
    torch.manual_seed(0)
    model = Pix2PixModel(OPT)
    with tempfile.TemporaryDirectory() as tmp:
        for it in range(OPT["n_iter"]):
            batch = {"A": torch.randn(2, 3, 16, 16), "B": torch.randn(2, 3, 16, 16)}
            model.set_input(batch)
            model.optimize_parameters()
            print(f"iter {it}: " + " ".join(f"{k}={v:.3f}" for k, v in model.losses.items()))
            model.save(os.path.join(tmp, "latest_net.pth"))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")

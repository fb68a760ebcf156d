"""Category GG103 look-alike -- correct code.
A small GAN trainer in the CycleGAN style: the discriminator step scores
`fake.detach()` (so the generator gets no gradient from the D loss), and the D loss
still has a graph through the discriminator's own parameters.  The generator step
uses the non-detached fake.  Both backward() calls are valid.
Modelled on: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/388
"""
import os
import tempfile

import torch
import torch.nn as nn

OPT = {"nz": 8, "nx": 16, "bs": 16, "iters": 5, "lr": 2e-4, "beta1": 0.5}


class Generator(nn.Module):
    def __init__(self, nz, nx):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(True), nn.Linear(32, nx), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, nx):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nx, 32), nn.LeakyReLU(0.2, True), nn.Linear(32, 1))

    def forward(self, x):
        return self.main(x)


class GANModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG, self.netD = Generator(opt["nz"], opt["nx"]), Discriminator(opt["nx"])
        self.criterionGAN = nn.BCEWithLogitsLoss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt["lr"], betas=(opt["beta1"], 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt["lr"], betas=(opt["beta1"], 0.999))

    def gan_loss(self, pred, is_real):
        target = torch.ones_like(pred) if is_real else torch.zeros_like(pred)
        return self.criterionGAN(pred, target)

    def backward_D_basic(self, netD, real, fake):
        loss_D_real = self.gan_loss(netD(real), True)
        loss_D_fake = self.gan_loss(netD(fake.detach()), False)
        loss_D = (loss_D_real + loss_D_fake) * 0.5
        loss_D.backward()
        return loss_D

    def optimize_parameters(self, real):
        z = torch.randn(real.size(0), self.opt["nz"])
        self.fake = self.netG(z)
        self.optimizer_G.zero_grad()
        self.loss_G = self.gan_loss(self.netD(self.fake), True)
        self.loss_G.backward()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        self.loss_D = self.backward_D_basic(self.netD, real, self.fake)
        self.optimizer_D.step()
        return {"G": self.loss_G.item(), "D": self.loss_D.item()}


def main():
    torch.manual_seed(0)
    model = GANModel(OPT)
    data = torch.rand(64, OPT["nx"]) * 2 - 1
    g0 = model.netG.main[0].weight.detach().clone()
    for it in range(OPT["iters"]):
        real = data[torch.randint(0, 64, (OPT["bs"],))]
        losses = model.optimize_parameters(real)
        print(f"it {it}: " + " ".join(f"{k}={v:.3f}" for k, v in losses.items()))
    assert not torch.equal(g0, model.netG.main[0].weight)
    with tempfile.TemporaryDirectory() as d:
        torch.save({"G": model.netG.state_dict(), "D": model.netD.state_dict()}, os.path.join(d, "latest.pth"))


if __name__ == "__main__":
    main()
    print("OK")

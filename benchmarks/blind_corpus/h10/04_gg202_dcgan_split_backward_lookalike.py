"""GG202 look-alike: three backward() calls per iteration that share tensors.

DCGAN-tutorial style step: the discriminator gets ``errD_real.backward()`` and
``errD_fake.backward()`` separately, then the generator loss is built from the
*same* ``fake`` batch and backpropagated as well.  It looks like a second
backward through a freed graph, but it is not: the two discriminator losses
come from two separate forward passes of netD, the fake branch uses
``fake.detach()`` so it never touches the generator graph, and the generator
loss runs a fresh netD forward on ``fake``, whose generator graph is still
intact when ``errG.backward()`` runs for the first and only time.
Modelled on: none (counter-example to the GAN report used for 03_gg202)
"""
import os
import tempfile

import torch
import torch.nn as nn


class Cfg:
    nz = 8
    ngf = 8
    ndf = 8
    nc = 1
    batch = 8
    iters = 3
    lr = 2e-4
    beta1 = 0.5


class G(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(c.nz, c.ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(c.ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(c.ngf * 2, c.nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


class D(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(c.nc, c.ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(c.ndf, 1, 4, 1, 0, bias=False),
        )

    def forward(self, x):
        return self.main(x).view(-1)


def gan_step(netG, netD, real, optG, optD, criterion, c):
    b = real.size(0)
    real_label = torch.full((b,), 1.0)
    fake_label = torch.full((b,), 0.0)

    netD.zero_grad()
    errD_real = criterion(netD(real), real_label)
    errD_real.backward()
    noise = torch.randn(b, c.nz, 1, 1)
    fake = netG(noise)
    errD_fake = criterion(netD(fake.detach()), fake_label)
    errD_fake.backward()
    optD.step()

    netG.zero_grad()
    errG = criterion(netD(fake), real_label)
    errG.backward()
    optG.step()
    return {"D": (errD_real + errD_fake).item(), "G": errG.item()}


def main():
    torch.manual_seed(0)
    c = Cfg()
    netG, netD = G(c), D(c)
    optD = torch.optim.Adam(netD.parameters(), lr=c.lr, betas=(c.beta1, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=c.lr, betas=(c.beta1, 0.999))
    criterion = nn.BCEWithLogitsLoss()
    logs = []
    for it in range(c.iters):
        real = torch.rand(c.batch, c.nc, 8, 8) * 2 - 1
        logs.append(gan_step(netG, netD, real, optG, optD, criterion, c))
        print(f"iter {it}: " + ", ".join(f"{k}={v:.3f}" for k, v in logs[-1].items()))
    with tempfile.TemporaryDirectory() as tmp:
        torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, os.path.join(tmp, "dcgan.pt"))


if __name__ == "__main__":
    main()
    print("OK")

"""GG608 - fixed: the generator loss is computed on the non-detached fake map.

Change-detection GAN: the generator maps an image pair (t0, t1 stacked on
channels) to a change map, and a discriminator judges change maps.  In the
generator update the fake map is detached before it goes into the
discriminator in the buggy version, so optimizer_g.step() had no gradients to
apply.  The fix feeds the fake map without .detach() in the G update, so
err_g.backward() reaches the generator.

Modelled on: https://github.com/wangle53/CSA-CDGAN/issues/5
"""
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Opt:
    in_ch = 6        # two RGB images stacked
    ngf = 8
    ndf = 8
    isize = 16
    batchsize = 4
    niter = 2
    lr = 2e-4
    beta1 = 0.5


class Generator(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(opt.in_ch, opt.ngf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(opt.ngf, opt.ngf * 2, 4, 2, 1), nn.BatchNorm2d(opt.ngf * 2), nn.LeakyReLU(0.2, True),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(opt.ngf * 2, opt.ngf, 4, 2, 1), nn.BatchNorm2d(opt.ngf), nn.ReLU(True),
            nn.ConvTranspose2d(opt.ngf, 1, 4, 2, 1), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


class Discriminator(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, opt.ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(opt.ndf, opt.ndf * 2, 4, 2, 1), nn.BatchNorm2d(opt.ndf * 2), nn.LeakyReLU(0.2, True),
        )
        self.classifier = nn.Sequential(nn.Conv2d(opt.ndf * 2, 1, 4, 1, 0), nn.Sigmoid())

    def forward(self, x):
        return self.classifier(self.features(x)).view(-1)


def train(opt, netg, netd, loader, outdir):
    bce = nn.BCELoss()
    optimizer_g = torch.optim.Adam(netg.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    optimizer_d = torch.optim.Adam(netd.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    for epoch in range(opt.niter):
        netg.train()
        netd.train()
        for i, (pair, label) in enumerate(loader):
            real_label = torch.ones(pair.size(0))
            fake_label = torch.zeros(pair.size(0))
            fake = netg(pair)

            # ---- update D ----
            optimizer_d.zero_grad()
            pred_real = netd(label)
            pred_fake = netd(fake.detach())
            err_d = 0.5 * (bce(pred_real, real_label) + bce(pred_fake, fake_label))
            err_d.backward()
            optimizer_d.step()

            # ---- update G ----
            optimizer_g.zero_grad()
            pred_fake = netd(fake)
            err_g = bce(pred_fake, real_label)
            err_g.backward()
            optimizer_g.step()  # fixed: GG608
            print(f"[{epoch}/{opt.niter}][{i}/{len(loader)}] err_d {err_d.item():.4f} err_g {err_g.item():.4f}")
        torch.save({"netg": netg.state_dict(), "netd": netd.state_dict()}, os.path.join(outdir, "netG.pth"))


def main():
    opt = Opt()
    torch.manual_seed(3)
    pairs = torch.rand(8, opt.in_ch, opt.isize, opt.isize)
    labels = (torch.rand(8, 1, opt.isize, opt.isize) > 0.8).float()
    loader = DataLoader(TensorDataset(pairs, labels), batch_size=opt.batchsize, shuffle=True)
    netg, netd = Generator(opt), Discriminator(opt)
    g_before = [p.detach().clone() for p in netg.parameters()]
    with tempfile.TemporaryDirectory() as outdir:
        train(opt, netg, netd, loader, outdir)
    return g_before, netg


if __name__ == "__main__":
    g_before, netg = main()
    assert not all(torch.equal(b, p.detach()) for b, p in zip(g_before, netg.parameters()))
    print("FIXED: ok")

"""GG608 look-alike - detach() before the discriminator loss, optimizer still reached.

Standard GAN step: the discriminator loss uses fake.detach(), so the
generator is cut off from that loss, but only the discriminator's optimizer
is stepped after it, and the discriminator is reached by the loss.  The
generator is then updated from its own, non-detached loss.  Both networks
change.  Runs cleanly.

Modelled on: none found (correct counterpart of the detached-weights bug)
"""
import torch
import torch.nn as nn

CONFIG = {"nz": 8, "data_dim": 16, "batch": 16, "iters": 4, "lr": 2e-4, "beta1": 0.5}


class Generator(nn.Module):
    def __init__(self, nz, out):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, out), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, inp):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(inp, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.main(x).view(-1)


def train(netG, netD, optG, optD, criterion, cfg):
    real_label, fake_label = 1.0, 0.0
    logs = []
    for i in range(cfg["iters"]):
        real = torch.rand(cfg["batch"], cfg["data_dim"]) * 2 - 1
        noise = torch.randn(cfg["batch"], cfg["nz"])
        fake = netG(noise)

        netD.zero_grad()
        real_t = torch.full((cfg["batch"],), real_label)
        fake_t = torch.full((cfg["batch"],), fake_label)
        errD_real = criterion(netD(real), real_t)
        errD_fake = criterion(netD(fake.detach()), fake_t)
        errD = errD_real + errD_fake
        errD.backward()
        optD.step()

        netG.zero_grad()
        errG = criterion(netD(fake), real_t)
        errG.backward()
        optG.step()
        logs.append((errD.item(), errG.item()))
        print(f"[{i}/{cfg['iters']}] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f}")
    return logs


def main():
    torch.manual_seed(0)
    netG, netD = Generator(CONFIG["nz"], CONFIG["data_dim"]), Discriminator(CONFIG["data_dim"])
    optD = torch.optim.Adam(netD.parameters(), lr=CONFIG["lr"], betas=(CONFIG["beta1"], 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=CONFIG["lr"], betas=(CONFIG["beta1"], 0.999))
    d0 = netD.main[0].weight.detach().clone()
    g0 = netG.main[0].weight.detach().clone()
    train(netG, netD, optG, optD, nn.BCEWithLogitsLoss(), CONFIG)
    assert not torch.equal(d0, netD.main[0].weight)
    assert not torch.equal(g0, netG.main[0].weight)


if __name__ == "__main__":
    main()
    print("OK")

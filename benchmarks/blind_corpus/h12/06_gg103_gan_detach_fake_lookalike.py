"""GG103 look-alike - .detach() used correctly in a GAN discriminator step.

The discriminator step uses fake.detach() so the generator is not updated by
the discriminator loss; the discriminator loss still depends on D's own
parameters, so backward() works. The generator step uses the non-detached fake.
Logging uses loss.detach(). Nothing is cut from the graph that must be trained.

Modelled on: none found (standard DCGAN training step).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

OPT = {"nz": 8, "data_dim": 16, "lr": 2e-4, "beta1": 0.5, "epochs": 2, "batch_size": 16}


class Generator(nn.Module):
    def __init__(self, nz, out_dim):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 32), nn.LeakyReLU(0.2), nn.Linear(32, out_dim), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(in_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.main(x).squeeze(1)


def d_step(netD, optD, real, fake, criterion):
    optD.zero_grad()
    ones = torch.ones(real.size(0))
    zeros = torch.zeros(real.size(0))
    errD = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
    errD.backward()
    optD.step()
    return errD.detach()


def g_step(netD, optG, fake, criterion):
    optG.zero_grad()
    errG = criterion(netD(fake), torch.ones(fake.size(0)))
    errG.backward()
    optG.step()
    return errG.detach()


def main():
    torch.manual_seed(3)
    data = torch.tanh(torch.randn(64, OPT["data_dim"]))
    loader = DataLoader(TensorDataset(data), batch_size=OPT["batch_size"], shuffle=True)
    netG, netD = Generator(OPT["nz"], OPT["data_dim"]), Discriminator(OPT["data_dim"])
    optG = torch.optim.Adam(netG.parameters(), lr=OPT["lr"], betas=(OPT["beta1"], 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=OPT["lr"], betas=(OPT["beta1"], 0.999))
    criterion = nn.BCEWithLogitsLoss()
    g0 = netG.main[0].weight.detach().clone()
    history = []
    for epoch in range(OPT["epochs"]):
        for i, (real,) in enumerate(loader):
            fake = netG(torch.randn(real.size(0), OPT["nz"]))
            errD = d_step(netD, optD, real, fake, criterion)
            errG = g_step(netD, optG, fake, criterion)
            history.append((errD, errG))
        print(f"[{epoch}] Loss_D {history[-1][0]:.4f} Loss_G {history[-1][1]:.4f}")
    assert not torch.equal(g0, netG.main[0].weight)


if __name__ == "__main__":
    main()
    print("OK")

"""DCGAN training step written with one discriminator pass for both losses.

The pattern of many tutorials ported to PyTorch >= 1.5: `output = netD(fake)` once, the
discriminator's loss backpropagated with `retain_graph=True` so the generator's loss can
reuse `output`, but `optimizerD.step()` in between. Reported as a crash ("modified by an
inplace operation") in e.g. https://github.com/PeizhuoLi/ganimator/issues/5 and
https://github.com/xaggi/OGNet/issues/8, whose answers move the steps or recompute the
output. Written from scratch; the second training function is the corrected shape, which
must stay silent.
"""

import torch
import torch.nn as nn
import torch.optim as optim

nz = 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, 16, 4, 1, 0, bias=False),
            nn.ReLU(True),
            nn.ConvTranspose2d(16, 1, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, 16, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(16, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        output = self.main(input)
        return output.view(-1, 1).squeeze(1)


netG = Generator()
netD = Discriminator()
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))


def train_one_pass(real):
    b_size = real.size(0)
    noise = torch.randn(b_size, nz, 1, 1)
    fake = netG(noise)
    netD.zero_grad()
    errD_real = criterion(netD(real), torch.ones(b_size))
    errD_real.backward()
    output = netD(fake)
    errD_fake = criterion(output, torch.zeros(b_size))
    errD_fake.backward(retain_graph=True)
    optimizerD.step()  # expect: GG205
    netG.zero_grad()
    errG = criterion(output, torch.ones(b_size))
    errG.backward()
    optimizerG.step()
    return errD_real + errD_fake, errG


def train_recomputed(real):
    b_size = real.size(0)
    noise = torch.randn(b_size, nz, 1, 1)
    fake = netG(noise)
    netD.zero_grad()
    errD_real = criterion(netD(real), torch.ones(b_size))
    errD_real.backward()
    errD_fake = criterion(netD(fake.detach()), torch.zeros(b_size))
    errD_fake.backward(retain_graph=True)
    optimizerD.step()
    netG.zero_grad()
    output = netD(fake)
    errG = criterion(output, torch.ones(b_size))
    errG.backward()
    optimizerG.step()
    return errD_real + errD_fake, errG


for step in range(2):
    batch = torch.rand(4, 1, 8, 8) * 2 - 1
    train_recomputed(batch)
    train_one_pass(batch)

"""A GAN loop that clears the generator's gradients but never the discriminator's (GG601).

`netG.zero_grad()` clears only the generator's parameters; the discriminator's optimizer
steps on gradients summed since the first batch (including what the generator's loss
backpropagates into the discriminator every iteration).

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/examples/blob/main/dcgan/main.py - the loop clears `netD` at the
  top of the discriminator update and `netG` at the top of the generator update; the case
  below drops the first, as in
  https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1 (only the encoder's
  optimizer is cleared).
"""

import torch
import torch.nn as nn
import torch.optim as optim

nz, ngf, ndf = 16, 8, 8
nc = 3
if torch.cuda.is_available():
    nc = 1


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(nn.Linear(nz, ngf), nn.ReLU(True), nn.Linear(ngf, nc), nn.Tanh())

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(nn.Linear(nc, ndf), nn.LeakyReLU(0.2), nn.Linear(ndf, 1))

    def forward(self, input):
        return self.main(input).view(-1)


netG = Generator()
netD = Discriminator()
criterion = nn.BCEWithLogitsLoss()
optimizerD = optim.Adam(netD.parameters(), lr=2e-4)
optimizerG = optim.Adam(netG.parameters(), lr=2e-4)


def train(dataloader, epochs):
    for epoch in range(epochs):
        for i, real in enumerate(dataloader):  # expect: GG601
            label = torch.ones(real.size(0))
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            fake = netG(torch.randn(real.size(0), nz))
            errD_fake = criterion(netD(fake.detach()), torch.zeros(real.size(0)))
            errD_fake.backward()
            optimizerD.step()

            netG.zero_grad()
            errG = criterion(netD(fake), label)
            errG.backward()
            optimizerG.step()


def train_cleared(dataloader, epochs):
    for epoch in range(epochs):
        for i, real in enumerate(dataloader):
            netD.zero_grad()
            label = torch.ones(real.size(0))
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            fake = netG(torch.randn(real.size(0), nz))
            errD_fake = criterion(netD(fake.detach()), torch.zeros(real.size(0)))
            errD_fake.backward()
            optimizerD.step()

            netG.zero_grad()
            errG = criterion(netD(fake), label)
            errG.backward()
            optimizerG.step()


class Critic(nn.Module):
    """Holds the discriminator it is given: its zero_grad() clears netD's parameters too."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)


critic = Critic(netD)


def train_wrapped(dataloader):
    for real in dataloader:
        critic.zero_grad()
        errD = criterion(critic(real), torch.ones(real.size(0)))
        errD.backward()
        optimizerD.step()

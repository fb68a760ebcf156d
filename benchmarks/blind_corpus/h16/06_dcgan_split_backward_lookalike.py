"""GG202 look-alike: several backward() calls per iteration, each through its own graph.

DCGAN-style update: the discriminator loss on real images and on detached fakes are
back-propagated with two separate backward() calls (two independent graphs), and the
generator loss goes through a fresh discriminator pass on the non-detached fake, so the
generator's graph is traversed exactly once. Nothing is backpropagated twice. Correct code.

Modelled on: https://github.com/naver-ai/StyleMapGAN/issues/16 (separate backward calls,
here on graphs that do not overlap)
"""
import torch
import torch.nn as nn

nz, ngf, ndf, nc = 8, 16, 16, 1
batch_size, image_size, num_iters = 6, 8, 3
real_label, fake_label = 1.0, 0.0


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1)


def weights_init(m):
    if "Conv" in m.__class__.__name__:
        nn.init.normal_(m.weight.data, 0.0, 0.02)


def train_step(netG, netD, optimizerG, optimizerD, criterion, real):
    b = real.size(0)
    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    label = torch.full((b,), real_label)
    errD_real = criterion(netD(real), label)
    errD_real.backward()

    noise = torch.randn(b, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    errD_fake = criterion(netD(fake.detach()), label)
    errD_fake.backward()
    optimizerD.step()

    # (2) update G: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    errG = criterion(netD(fake), label)
    errG.backward()
    optimizerG.step()
    return {"D": (errD_real + errD_fake).item(), "G": errG.item()}


def main():
    torch.manual_seed(1)
    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for it in range(num_iters):
        real = torch.rand(batch_size, nc, image_size, image_size) * 2 - 1
        losses = train_step(netG, netD, optimizerG, optimizerD, criterion, real)
        print(f"[{it}/{num_iters}] Loss_D: {losses['D']:.4f} Loss_G: {losses['G']:.4f}")


if __name__ == "__main__":
    main()
    print("OK")

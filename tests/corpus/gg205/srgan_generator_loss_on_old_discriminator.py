"""Super-resolution GAN: the generator's loss reuses the discriminator score from before the
discriminator's step.

Modelled on leftthomas/SRGAN's train.py as reported in
https://github.com/leftthomas/SRGAN/issues/79 and
https://github.com/leftthomas/SRGAN/issues/89 (PyTorch >= 1.5 raises "one of the variables
needed for gradient computation has been modified by an inplace operation" at
`g_loss.backward()`): `d_loss.backward(retain_graph=True)`, `optimizerD.step()`, then the
generator loss built from `fake_out`, the discriminator output computed before the step.
The discriminator is convolutional, so its graph saved its weights. Written from scratch.
"""

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.PReLU(), nn.Conv2d(16, 3 * scale * scale, 3, padding=1)
        )
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return torch.tanh(self.shuffle(self.body(x)))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(16, 16, 3, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(16, 1, 1),
        )

    def forward(self, x):
        batch_size = x.size(0)
        return torch.sigmoid(self.net(x).view(batch_size))


netG = Generator()
netD = Discriminator()
optimizerG = torch.optim.Adam(netG.parameters())
optimizerD = torch.optim.Adam(netD.parameters())
mse = nn.MSELoss()

for epoch in range(2):
    for _ in range(3):
        lr_img = torch.rand(2, 3, 8, 8)
        real_img = torch.rand(2, 3, 16, 16)

        # (1) discriminator: maximise D(x) - D(G(z))
        fake_img = netG(lr_img)
        netD.zero_grad()
        real_out = netD(real_img).mean()
        fake_out = netD(fake_img).mean()
        d_loss = 1 - real_out + fake_out
        d_loss.backward(retain_graph=True)
        optimizerD.step()  # expect: GG205

        # (2) generator: adversarial term from the score computed above, plus content loss
        netG.zero_grad()
        g_loss = mse(fake_img, real_img) + 1e-3 * (1 - fake_out)
        g_loss.backward()
        optimizerG.step()
    print(epoch, float(d_loss), float(g_loss))

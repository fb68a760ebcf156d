"""ESRGAN-style adversarial training loop with a swapped optimizer.

Modelled on: https://github.com/Lornatang/ESRGAN-PyTorch/issues/39

In train_gan.py the discriminator update block used g_optimizer twice
where the second call should have been d_optimizer. The discriminator
loss is computed on real images and on detached fake images, so it never
reaches the generator: stepping g_optimizer after d_loss.backward()
updates nothing useful, and the discriminator is never trained.

Fixed version: the discriminator loss is followed by d_optimizer.step().
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(ch, 3 * 4, 3, padding=1))
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, lr_img):
        return self.shuffle(self.body(lr_img))


class Discriminator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(ch, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(ch, 1),
        )

    def forward(self, x):
        return self.net(x)


def train_discriminator(d_model, d_optimizer, g_optimizer, hr, sr):
    d_optimizer.zero_grad()
    real = d_model(hr)
    fake = d_model(sr.detach())
    d_loss = F.binary_cross_entropy_with_logits(real, torch.ones_like(real)) + \
        F.binary_cross_entropy_with_logits(fake, torch.zeros_like(fake))
    d_loss.backward()
    d_optimizer.step()
    return d_loss.item()


def train_generator(g_model, d_model, g_optimizer, lr_img, hr):
    g_optimizer.zero_grad()
    sr = g_model(lr_img)
    adv = d_model(sr)
    g_loss = F.l1_loss(sr, hr) + 1e-3 * F.binary_cross_entropy_with_logits(adv, torch.ones_like(adv))
    g_loss.backward()
    g_optimizer.step()
    return sr


def train(g_model, d_model, batches):
    g_optimizer = torch.optim.Adam(g_model.parameters(), lr=1e-3)
    d_optimizer = torch.optim.Adam(d_model.parameters(), lr=1e-3)
    for lr_img, hr in batches:
        sr = train_generator(g_model, d_model, g_optimizer, lr_img, hr)
        train_discriminator(d_model, d_optimizer, g_optimizer, hr, sr)


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    batches = [(torch.rand(2, 3, 8, 8, generator=g), torch.rand(2, 3, 16, 16, generator=g)) for _ in range(3)]
    G, D = Generator(), Discriminator()
    d_before = [p.detach().clone() for p in D.parameters()]
    train(G, D, batches)
    if all(torch.equal(a, b) for a, b in zip(d_before, D.parameters())):
        print("BUGGY: discriminator weights never changed; its loss stepped the generator optimizer")
    else:
        print("FIXED: ok")

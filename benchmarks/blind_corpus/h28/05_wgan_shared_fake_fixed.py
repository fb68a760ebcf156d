"""WGAN training script (weight clipping, n_critic) on synthetic "images".

Modelled on: https://github.com/eriklindernoren/PyTorch-GAN/issues/6

Fixed version: the critic loss uses fake_imgs.detach(), so the critic's
backward() stops at the generator output and the generator's graph is still
intact when the generator step back-propagates through the same fake batch.
"""
import argparse

import torch
import torch.nn as nn

torch.set_num_threads(1)


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n_epochs", type=int, default=1)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--latent_dim", type=int, default=8)
    p.add_argument("--img_size", type=int, default=6)
    p.add_argument("--n_critic", type=int, default=2)
    p.add_argument("--clip_value", type=float, default=0.01)
    return p.parse_args(argv)


class Generator(nn.Module):
    def __init__(self, latent_dim, img_shape):
        super().__init__()
        self.img_shape = img_shape
        out = int(torch.tensor(img_shape).prod())
        self.model = nn.Sequential(
            nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2),
            nn.Linear(32, out), nn.Tanh())

    def forward(self, z):
        return self.model(z).view(z.shape[0], *self.img_shape)


class Discriminator(nn.Module):
    def __init__(self, img_shape):
        super().__init__()
        inp = int(torch.tensor(img_shape).prod())
        self.model = nn.Sequential(nn.Linear(inp, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def make_loader(n_batches, batch_size, img_shape):
    g = torch.Generator().manual_seed(0)
    return [torch.rand(batch_size, *img_shape, generator=g) * 2 - 1 for _ in range(n_batches)]


def train(opt):
    img_shape = (1, opt.img_size, opt.img_size)
    generator = Generator(opt.latent_dim, img_shape)
    discriminator = Discriminator(img_shape)
    optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=opt.lr)
    optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=opt.lr)
    dataloader = make_loader(4, opt.batch_size, img_shape)

    batches_done = 0
    for epoch in range(opt.n_epochs):
        for i, imgs in enumerate(dataloader):
            optimizer_D.zero_grad()
            z = torch.randn(imgs.shape[0], opt.latent_dim)
            fake_imgs = generator(z)
            loss_D = -torch.mean(discriminator(imgs)) + torch.mean(discriminator(fake_imgs.detach()))
            loss_D.backward()
            optimizer_D.step()
            for p in discriminator.parameters():
                p.data.clamp_(-opt.clip_value, opt.clip_value)

            if i % opt.n_critic == 0:
                optimizer_G.zero_grad()
                loss_G = -torch.mean(discriminator(fake_imgs))
                loss_G.backward()
                optimizer_G.step()
            batches_done += 1
    return batches_done


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        assert train(get_args([])) == 4
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"FAILED: {e}")

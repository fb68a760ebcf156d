"""GG202: GAN whose generator update back-propagates through a graph already freed.

Category GG202. One batch of fakes is generated per iteration and reused for both updates.
The discriminator loss uses the fakes without detaching them, so its backward() walks
through (and frees) the generator's part of the graph. The generator loss then needs that
same generator graph again and its backward() is a second pass through freed buffers.
Torch raises: RuntimeError: Trying to backward through the graph a second time (or directly
access saved tensors after they have already been freed). ...
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

LATENT = 8
DATA_DIM = 2


def build_models():
    generator = nn.Sequential(
        nn.Linear(LATENT, 32), nn.LeakyReLU(0.2), nn.Linear(32, 32), nn.LeakyReLU(0.2),
        nn.Linear(32, DATA_DIM),
    )
    discriminator = nn.Sequential(
        nn.Linear(DATA_DIM, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1),
    )
    return generator, discriminator


def discriminator_loss(disc, real, fake, criterion):
    real_logits = disc(real)
    fake_logits = disc(fake)
    loss_real = criterion(real_logits, torch.ones_like(real_logits))
    loss_fake = criterion(fake_logits, torch.zeros_like(fake_logits))
    return (loss_real + loss_fake) / 2


def generator_loss(disc, fake, criterion):
    logits = disc(fake)
    return criterion(logits, torch.ones_like(logits))


def train(gen, disc, loader, opt_g, opt_d, criterion, epochs=1):
    logs = {"d": [], "g": []}
    for epoch in range(epochs):
        for i, (real,) in enumerate(loader):
            z = torch.randn(real.size(0), LATENT)
            fake = gen(z)

            opt_d.zero_grad()
            d_loss = discriminator_loss(disc, real, fake, criterion)
            d_loss.backward()
            opt_d.step()

            opt_g.zero_grad()
            g_loss = generator_loss(disc, fake, criterion)
            g_loss.backward()  # bug: GG202
            opt_g.step()

            logs["d"].append(d_loss.item())
            logs["g"].append(g_loss.item())
            if i % 5 == 0:
                print(f"epoch {epoch} it {i}: D {logs['d'][-1]:.3f} G {logs['g'][-1]:.3f}")
    return logs


def main():
    torch.manual_seed(0)
    ring = torch.randn(256, DATA_DIM)
    ring = ring / ring.norm(dim=1, keepdim=True) * 2.0
    loader = DataLoader(TensorDataset(ring), batch_size=32, shuffle=True)
    gen, disc = build_models()
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.5, 0.999))
    train(gen, disc, loader, opt_g, opt_d, nn.BCEWithLogitsLoss())


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

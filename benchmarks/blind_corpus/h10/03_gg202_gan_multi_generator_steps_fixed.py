"""GG202 (fixed version): second backward() through a graph that the first backward() freed.

Mistake: a GAN loop updates the generator ``g_steps`` times per discriminator
update.  The last generated batch ``fake`` is kept and handed to the
discriminator update afterwards without ``.detach()``.  The discriminator loss
therefore reaches back into the generator's graph, whose saved tensors were
freed by ``g_loss.backward()`` in the generator loop.
torch raises: RuntimeError: Trying to backward through the graph a second time
(or directly access saved tensors after they have already been freed). ...
Fix: feed ``fake.detach()`` to the discriminator update.
Modelled on: https://pytroubles.com/ru/posts/id2658-gan-v-pytorch-ispravljaem-oshibku-backward-cherez-detach
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = dict(
    latent_dim=16,
    img_dim=64,
    hidden=48,
    batch_size=16,
    lr_g=2e-4,
    lr_d=2e-4,
    betas=(0.5, 0.999),
    g_steps=2,
    epochs=1,
)


class Generator(nn.Module):
    def __init__(self, latent_dim, hidden, img_dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(latent_dim, hidden), nn.LeakyReLU(0.2),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.LeakyReLU(0.2),
            nn.Linear(hidden, img_dim), nn.Tanh(),
        )

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(img_dim, hidden), nn.LeakyReLU(0.2),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.net(x).view(-1)


def sample_noise(n, dim, device):
    return torch.randn(n, dim, device=device)


def train(netG, netD, loader, optG, optD, criterion, hp, device):
    netG.train()
    netD.train()
    for epoch in range(hp["epochs"]):
        for batch_idx, (real,) in enumerate(loader):
            real = real.to(device)
            bsz = real.size(0)
            ones = torch.ones(bsz, device=device)
            zeros = torch.zeros(bsz, device=device)

            # ---- generator: several updates per discriminator update ----
            for _ in range(hp["g_steps"]):
                fake = netG(sample_noise(bsz, hp["latent_dim"], device))
                g_loss = criterion(netD(fake), ones)
                optG.zero_grad()
                g_loss.backward()
                optG.step()

            # ---- discriminator: one update on real + last fake batch ----
            optD.zero_grad()
            d_real = criterion(netD(real), ones)
            d_fake = criterion(netD(fake.detach()), zeros)
            d_loss = 0.5 * (d_real + d_fake)
            d_loss.backward()  # fixed: GG202
            optD.step()

            if batch_idx % 2 == 0:
                print(f"[{epoch}][{batch_idx}] loss_D {d_loss.item():.3f} loss_G {g_loss.item():.3f}")


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    device = torch.device("cpu")
    data = torch.rand(96, hp["img_dim"]) * 2 - 1
    loader = DataLoader(TensorDataset(data), batch_size=hp["batch_size"], shuffle=True, drop_last=True)
    netG = Generator(hp["latent_dim"], hp["hidden"], hp["img_dim"]).to(device)
    netD = Discriminator(hp["img_dim"], hp["hidden"]).to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=hp["lr_g"], betas=hp["betas"])
    optD = torch.optim.Adam(netD.parameters(), lr=hp["lr_d"], betas=hp["betas"])
    criterion = nn.BCEWithLogitsLoss()
    train(netG, netD, loader, optG, optD, criterion, hp, device)


if __name__ == "__main__":
    main()
    print("FIXED: ok")

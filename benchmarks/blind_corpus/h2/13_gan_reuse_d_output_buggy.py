"""GG205: GAN step reuses the discriminator output after the discriminator was updated.

Category GG205. To save a forward pass, the script scores the fakes with netD once,
back-propagates the discriminator loss with retain_graph=True, steps optimizerD, and then
builds the generator loss from that same ``output``. optimizerD.step() updated netD's
weights in place, but the retained graph saved those weights to back-propagate into the
fakes, so the generator's backward() finds them at a newer version.
Torch raises: RuntimeError: one of the variables needed for gradient computation has been
modified by an inplace operation: [torch.FloatTensor [32, 1]], which is output 0 of
AsStrided, is at version 2; expected version 1 instead. ...
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(11)
device = torch.device("cpu")
nz, img_dim, batch_size, num_epochs = 6, 16, 16, 2
real_label, fake_label = 1.0, 0.0

netG = nn.Sequential(
    nn.Linear(nz, 32), nn.BatchNorm1d(32), nn.ReLU(True), nn.Linear(32, img_dim), nn.Tanh()
).to(device)
netD = nn.Sequential(
    nn.Linear(img_dim, 32), nn.LeakyReLU(0.2, inplace=True), nn.Linear(32, 1), nn.Sigmoid()
).to(device)

criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
dataset = TensorDataset(torch.rand(64, img_dim) * 2 - 1)
dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)
G_losses, D_losses = [], []


def run():
    for epoch in range(num_epochs):
        for i, (real_cpu,) in enumerate(dataloader):
            # (1) Update D: maximize log(D(x)) + log(1 - D(G(z)))
            netD.zero_grad()
            real_cpu = real_cpu.to(device)
            label = torch.full((real_cpu.size(0),), real_label, device=device)
            errD_real = criterion(netD(real_cpu).view(-1), label)
            errD_real.backward()

            noise = torch.randn(real_cpu.size(0), nz, device=device)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake).view(-1)
            errD_fake = criterion(output, label)
            errD_fake.backward(retain_graph=True)
            errD = errD_real + errD_fake
            optimizerD.step()  # bug: GG205

            # (2) Update G: maximize log(D(G(z))), reusing D's scores of the fakes
            netG.zero_grad()
            label.fill_(real_label)
            errG = criterion(output, label)
            errG.backward()
            optimizerG.step()

            G_losses.append(errG.item())
            D_losses.append(errD.item())
            if i % 2 == 0:
                print(f"[{epoch}/{num_epochs}][{i}/{len(dataloader)}] Loss_D {errD.item():.4f} Loss_G {errG.item():.4f}")


if __name__ == "__main__":
    try:
        run()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

"""Category GG205 - optimizer.step() updates weights a retained graph saved, then backward again.

An old-is-gold style one-class anomaly detector: a denoising autoencoder G and a
discriminator D. The discriminator loss is backpropagated with retain_graph=True
and D is stepped; the generator's adversarial term then reuses d_fake_output,
whose graph saved D's weights *before* the step. Adam's in-place update bumped
their version counters, so the generator backward fails with:
    RuntimeError: one of the variables needed for gradient computation has been
    modified by an inplace operation: [torch.FloatTensor [...]] ... is at version 2;
    expected version 1 instead. ...

Modelled on: https://github.com/xaggi/OGNet/issues/8
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def gaussian(ins, mean, stddev):
    return ins + torch.randn_like(ins) * stddev + mean


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
                                     nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU())
        self.decoder = nn.Sequential(nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.ReLU(),
                                     nn.ConvTranspose2d(8, 1, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        return self.decoder(self.encoder(x))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(8, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Flatten(), nn.Linear(16 * 4 * 4, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x).squeeze(1)


class OGNet:
    def __init__(self, opts):
        self.opts = opts
        self.g, self.d = Generator(), Discriminator()
        self.batch_size = opts["batch_size"]
        images = torch.rand(opts["n_images"], 1, 16, 16) * 2 - 1
        self.dataloader = DataLoader(TensorDataset(images, torch.zeros(opts["n_images"])),
                                     batch_size=self.batch_size, shuffle=True, drop_last=True)

    def train(self, normal_class, out_dir):
        self.g.train()
        self.d.train()
        g_optim = torch.optim.Adam(self.g.parameters(), lr=self.opts["g_lr"])
        d_optim = torch.optim.Adam(self.d.parameters(), lr=self.opts["d_lr"])
        fake = torch.ones(self.batch_size)
        valid = torch.zeros(self.batch_size)
        bce, mse = nn.BCELoss(), nn.MSELoss()
        for num_epoch in range(self.opts["epochs"]):
            for i, (inputs, _) in enumerate(self.dataloader):
                g_optim.zero_grad()
                d_optim.zero_grad()
                noisy = gaussian(inputs, 0, self.opts["sigma_noise"])
                g_output = self.g(noisy)

                d_fake_output = self.d(g_output)
                d_real_output = self.d(inputs)
                d_sum_loss = 0.5 * (bce(d_fake_output, fake) + bce(d_real_output, valid))
                d_sum_loss.backward(retain_graph=True)
                d_optim.step()  # bug: GG205

                g_recon_loss = mse(g_output, inputs)
                g_adversarial_loss = bce(d_fake_output, valid)
                g_sum_loss = (1 - self.opts["adv_w"]) * g_recon_loss + self.opts["adv_w"] * g_adversarial_loss
                g_sum_loss.backward()
                g_optim.step()
                print(f"[{num_epoch}][{i}] d={d_sum_loss.item():.3f} g={g_sum_loss.item():.3f}")
            torch.save(self.g.state_dict(), os.path.join(out_dir, f"g_class{normal_class}.pt"))


if __name__ == "__main__":
    torch.manual_seed(0)
    opts = {"batch_size": 4, "n_images": 12, "g_lr": 1e-3, "d_lr": 1e-4, "epochs": 1,
            "sigma_noise": 0.3, "adv_w": 0.1}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            OGNet(opts).train(normal_class=3, out_dir=tmp)
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")

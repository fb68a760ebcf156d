"""GG205: discriminator optimizer.step() between two backward passes of one retained graph.

A dehazing GAN (pyramid generator + patch discriminator) computes the discriminator loss
and the generator loss from the same forward pass. The update routine back-propagates the
discriminator loss with retain_graph=True, steps the discriminator optimizer (which changes
the D weights in place), and only then back-propagates the generator loss, whose graph
saved those very D weights.
Torch raises: RuntimeError: one of the variables needed for gradient computation has been
modified by an inplace operation: [torch.FloatTensor ...] is at version N; expected version
N-1 instead. ...

Modelled on: https://github.com/ayu-22/BPPNet-Back-Projected-Pyramid-Network/issues/6
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

EPOCHS = 2
LAMBDA_L1 = 10.0
IMG = 16


class UNetBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.InstanceNorm2d(cout),
                                  nn.LeakyReLU(0.2))

    def forward(self, x):
        return self.conv(x)


class PyramidGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = UNetBlock(3, 16)
        self.mid = UNetBlock(16, 16)
        self.up = nn.Conv2d(32, 3, 3, padding=1)

    def forward(self, x):
        d = self.down(x)
        m = F.interpolate(self.mid(F.avg_pool2d(d, 2)), scale_factor=2)
        return torch.tanh(self.up(torch.cat([d, m], 1)))


class PatchDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(6, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                   nn.Conv2d(16, 1, 4, 1, 1))

    def forward(self, hazy, img):
        return self.model(torch.cat([hazy, img], 1))


class DehazeGAN:
    def __init__(self, device="cpu"):
        self.G = PyramidGenerator().to(device)
        self.D = PatchDiscriminator().to(device)
        self.g_optim = torch.optim.Adam(self.G.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.d_optim = torch.optim.Adam(self.D.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.adv = nn.BCEWithLogitsLoss()

    def set_input(self, hazy, clear):
        self.hazy, self.clear = hazy, clear

    def forward(self):
        self.dehazed = self.G(self.hazy)

    def compute_losses(self):
        pred_real = self.D(self.hazy, self.clear)
        pred_fake = self.D(self.hazy, self.dehazed)
        d_loss = 0.5 * (self.adv(pred_real, torch.ones_like(pred_real))
                        + self.adv(pred_fake, torch.zeros_like(pred_fake)))
        g_loss = (self.adv(pred_fake, torch.ones_like(pred_fake))
                  + LAMBDA_L1 * F.l1_loss(self.dehazed, self.clear))
        return d_loss, g_loss

    def backward(self, d_loss, g_loss):
        self.d_optim.zero_grad()
        d_loss.backward(retain_graph=True)
        self.d_optim.step()  # bug: GG205

        self.g_optim.zero_grad()
        g_loss.backward()
        self.g_optim.step()

    def optimize_parameters(self):
        self.forward()
        d_loss, g_loss = self.compute_losses()
        self.backward(d_loss, g_loss)
        return {"d": d_loss.item(), "g": g_loss.item()}


def train(model, loader, epochs):
    for epoch in range(epochs):
        for i, (hazy, clear) in enumerate(loader):
            model.set_input(hazy, clear)
            logs = model.optimize_parameters()
        print(f"epoch {epoch}: D {logs['d']:.3f} G {logs['g']:.3f}")


def main():
    torch.manual_seed(0)
    clear = torch.rand(8, 3, IMG, IMG) * 2 - 1
    hazy = 0.6 * clear + 0.4
    loader = [(hazy[i:i + 4], clear[i:i + 4]) for i in range(0, 8, 4)]
    train(DehazeGAN(), loader, EPOCHS)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

"""GG401 look-alike - requires_grad set on tensors that are leaves.

StyleGAN-style critic training with an R1 penalty: the real batch coming out of
the DataLoader (a leaf without history) gets ``real_img.requires_grad = True``,
and a WGAN-GP term whose interpolates are built from ``fake.detach()`` - again a
tensor with no history, so ``requires_grad_()`` on it is legal. Looks like setting
requires_grad on a computed tensor; runs cleanly.

Modelled on: https://github.com/daa233/generative-inpainting-pytorch/issues/17
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"size": 16, "latent": 8, "batch": 4, "r1": 10.0, "gp": 10.0, "iters": 3, "lr": 2e-4}


class G(nn.Module):
    def __init__(self, latent, size):
        super().__init__()
        self.size = size
        self.fc = nn.Linear(latent, 3 * size * size)

    def forward(self, z):
        return torch.tanh(self.fc(z)).view(-1, 3, self.size, self.size)


class D(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(),
                                 nn.Linear(8 * (size // 2) ** 2, 1))

    def forward(self, x):
        return self.net(x)


def d_r1_loss(real_pred, real_img):
    (grad_real,) = torch.autograd.grad(real_pred.sum(), real_img, create_graph=True)
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()


def gradient_penalty(disc, real, fake):
    alpha = torch.rand(real.size(0), 1, 1, 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = disc(interpolates)
    (grad,) = torch.autograd.grad(out.sum(), interpolates, create_graph=True)
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(0)
    a = ARGS
    data = DataLoader(TensorDataset(torch.rand(12, 3, a["size"], a["size"]) * 2 - 1), batch_size=a["batch"])
    gen, disc = G(a["latent"], a["size"]), D(a["size"])
    g_optim = torch.optim.Adam(gen.parameters(), lr=a["lr"])
    d_optim = torch.optim.Adam(disc.parameters(), lr=a["lr"])
    for it, (real_img,) in zip(range(a["iters"]), data):
        fake = gen(torch.randn(real_img.size(0), a["latent"]))
        real_img.requires_grad = True
        real_pred = disc(real_img)
        d_loss = (F.softplus(disc(fake.detach())).mean() + F.softplus(-real_pred).mean()
                  + a["r1"] / 2 * d_r1_loss(real_pred, real_img)
                  + a["gp"] * gradient_penalty(disc, real_img.detach(), fake.detach()))
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()

        g_loss = F.softplus(-disc(fake)).mean()
        g_optim.zero_grad()
        g_loss.backward()
        g_optim.step()
        print(f"iter {it}: d={d_loss.item():.3f} g={g_loss.item():.3f}")


if __name__ == "__main__":
    main()
    print("OK")

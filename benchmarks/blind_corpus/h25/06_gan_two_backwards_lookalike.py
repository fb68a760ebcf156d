"""GG202 look-alike - two backward() calls per iteration that never share a freed graph.

A vanilla GAN on 2-D points: the discriminator is trained on `fake.detach()`
(real and fake losses back-propagated separately, as many tutorials do), and the
generator step runs a *fresh* discriminator forward on the non-detached fake.
A second backward on one shared graph (auxiliary feature-matching loss) is
preceded by `retain_graph=True`.  Several backward() calls sit close to each
other, but every one of them runs through a graph that is still alive.

Modelled on: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439 (correct counterpart)
"""
import torch
import torch.nn as nn

CFG = dict(z_dim=4, hidden=32, batch=16, steps=3, lr=1e-3, fm_weight=0.1)


class Generator(nn.Module):
    def __init__(self, z_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(0.2))
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, return_features=False):
        f = self.features(x)
        logit = self.out(f)
        return (logit, f) if return_features else logit


def sample_real(n):
    angle = torch.rand(n) * 6.2831
    return torch.stack([angle.cos(), angle.sin()], dim=1) + 0.05 * torch.randn(n, 2)


def train(G, D, opt_g, opt_d, cfg):
    bce = nn.BCEWithLogitsLoss()
    history = []
    for step in range(cfg["steps"]):
        real = sample_real(cfg["batch"])
        z = torch.randn(cfg["batch"], cfg["z_dim"])
        fake = G(z)
        ones, zeros = torch.ones(cfg["batch"], 1), torch.zeros(cfg["batch"], 1)

        # discriminator: two separate backward calls on two separate graphs
        opt_d.zero_grad()
        loss_real = bce(D(real), ones)
        loss_real.backward()
        loss_fake = bce(D(fake.detach()), zeros)
        loss_fake.backward()
        opt_d.step()

        # generator: adversarial loss and feature matching share one graph
        opt_g.zero_grad()
        logit, feat_fake = D(fake, return_features=True)
        adv = bce(logit, ones)
        adv.backward(retain_graph=True)
        _, feat_real = D(real, return_features=True)
        fm = cfg["fm_weight"] * (feat_fake.mean(0) - feat_real.detach().mean(0)).pow(2).sum()
        fm.backward()
        opt_g.step()
        history.append({"d": (loss_real + loss_fake).item(), "g": adv.item(), "fm": fm.item()})
    return history


def main():
    torch.manual_seed(0)
    G, D = Generator(CFG["z_dim"], CFG["hidden"]), Discriminator(CFG["hidden"])
    opt_g = torch.optim.Adam(G.parameters(), lr=CFG["lr"], betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=CFG["lr"], betas=(0.5, 0.999))
    for i, h in enumerate(train(G, D, opt_g, opt_d, CFG)):
        print(f"step {i}: d={h['d']:.3f} g={h['g']:.3f} fm={h['fm']:.4f}")


if __name__ == "__main__":
    main()
    print("OK")

"""A discriminator that hands back its features only when asked (GG202).

GANomaly-style training: `netD(x, with_features=True)` returns `(score, features)`, and
`netD(x)` the score alone, so what a call returns depends on the flag it passes. The
generator step backpropagates its adversarial loss and then, in a second call, a feature
matching loss; both run through the generator's output and the discriminator's feature
layers, whose saved tensors the first backward freed: "Trying to backward through the graph
a second time" (checked with torch 2.13.0). The two separate backward calls are the shape
asked about in https://github.com/samet-akcay/ganomaly/issues/21.

The look-alikes backpropagate the sum once, detach the features for an auxiliary loss of
the discriminator's own, and call a model whose two heads share nothing (each head's
backward frees only its own graph, so two backward calls run).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Critic(nn.Module):
    def __init__(self, dim, width):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(dim, width), nn.LeakyReLU(0.2))
        self.score = nn.Linear(width, 1)

    def forward(self, x, with_features=False):
        feats = self.features(x)
        score = self.score(feats)
        if with_features:
            return score, feats
        return score


class TwoHeads(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.left = nn.Linear(dim, 1)
        self.right = nn.Linear(dim, 1)

    def forward(self, x, both=False):
        if both:
            return self.left(x), self.right(x)
        return self.left(x)


def generator_step(netG, netD, opt_g, real, z_dim):
    opt_g.zero_grad()
    fake = netG(torch.randn(real.size(0), z_dim))
    score, feats_fake = netD(fake, with_features=True)
    _, feats_real = netD(real, with_features=True)
    adversarial = F.softplus(-score).mean()
    matching = F.mse_loss(feats_fake.mean(0), feats_real.detach().mean(0))
    adversarial.backward()  # expect: GG202
    matching.backward()
    opt_g.step()


# --- look-alikes ---------------------------------------------------------------------------


def generator_step_summed(netG, netD, opt_g, real, z_dim):
    opt_g.zero_grad()
    fake = netG(torch.randn(real.size(0), z_dim))
    score, feats_fake = netD(fake, with_features=True)
    _, feats_real = netD(real, with_features=True)
    adversarial = F.softplus(-score).mean()
    matching = F.mse_loss(feats_fake.mean(0), feats_real.detach().mean(0))
    (adversarial + matching).backward()
    opt_g.step()


def critic_step_with_detached_features(netD, opt_d, real):
    opt_d.zero_grad()
    score, feats = netD(real, with_features=True)
    F.softplus(-score).mean().backward()
    spread = feats.detach().std()
    print(f"feature spread {spread.item():.3f}")
    opt_d.step()


def heads_step(heads, opt_h, batch):
    opt_h.zero_grad()
    left, right = heads(batch, both=True)
    left.pow(2).mean().backward()
    right.pow(2).mean().backward()
    opt_h.step()


def main(step):
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 6))
    netD = Critic(6, 5)
    opt_g = torch.optim.Adam(netG.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(netD.parameters(), lr=1e-3)
    heads = TwoHeads(6)
    opt_h = torch.optim.SGD(heads.parameters(), lr=0.1)
    real = torch.randn(4, 6)
    if step == "buggy":
        generator_step(netG, netD, opt_g, real, 3)
    elif step == "summed":
        generator_step_summed(netG, netD, opt_g, real, 3)
    elif step == "critic":
        critic_step_with_detached_features(netD, opt_d, real)
    else:
        heads_step(heads, opt_h, real)

if __name__ == "__main__":
    for look_alike in ("summed", "critic", "heads"):
        main(look_alike)
    try:
        main("buggy")
    except RuntimeError as error:
        print("fails as expected:", str(error).splitlines()[0])
    else:
        raise SystemExit("the buggy step ran")

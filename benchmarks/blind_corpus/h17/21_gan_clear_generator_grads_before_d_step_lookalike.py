"""GG605 look-alike - zero_grad() sits between a backward() and a step(), on the other network.

The discriminator loss is computed on a non-detached fake batch (the graph is
reused later for the generator), so d_loss.backward() also leaves gradients
on the generator.  Before stepping D, the trainer clears the *generator's*
optimizer; the discriminator's freshly computed gradients are untouched, so
opt_d.step() still uses them.  Checked: D moves, and G's update uses only
the generator loss.

Modelled on: none found (GAN loop that reuses the fake batch)
"""
import copy

import torch
import torch.nn as nn

LATENT, DATA, HIDDEN = 4, 2, 32
STEPS, BATCH = 4, 32


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, HIDDEN), nn.LeakyReLU(0.2),
                                 nn.Linear(HIDDEN, DATA))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DATA, HIDDEN), nn.LeakyReLU(0.2),
                                 nn.Linear(HIDDEN, 1))

    def forward(self, x):
        return self.net(x)


class GANTrainer:
    def __init__(self):
        self.G, self.D = Generator(), Discriminator()
        self.opt_g = torch.optim.SGD(self.G.parameters(), lr=0.05)
        self.opt_d = torch.optim.SGD(self.D.parameters(), lr=0.05)
        self.crit = nn.BCEWithLogitsLoss()
        self.logs = []

    def sample_real(self, n):
        return torch.randn(n, DATA) * 0.3 + torch.tensor([1.0, -1.0])

    def step(self, real, z):
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        fake = self.G(z)

        self.opt_d.zero_grad()
        d_loss = self.crit(self.D(real), ones) + self.crit(self.D(fake), zeros)
        d_loss.backward(retain_graph=True)
        self.opt_g.zero_grad()
        self.opt_d.step()

        g_loss = self.crit(self.D(fake), ones)
        g_loss.backward()
        g_grad = self.G.net[0].weight.grad.clone()
        self.opt_g.step()
        self.logs.append({"d": d_loss.item(), "g": g_loss.item()})
        return g_grad

    def train(self):
        for i in range(STEPS):
            self.step(self.sample_real(BATCH), torch.randn(BATCH, LATENT))
        print(f"last losses: {self.logs[-1]}")


def main():
    torch.manual_seed(0)
    t = GANTrainer()
    real, z = t.sample_real(BATCH), torch.randn(BATCH, LATENT)
    G0, D0 = copy.deepcopy(t.G), copy.deepcopy(t.D)
    g_grad = t.step(real, z)
    assert not torch.equal(D0.net[0].weight, t.D.net[0].weight)
    # reference: generator gradient of g_loss alone, through the updated D
    ref_d = copy.deepcopy(t.D)
    nn.BCEWithLogitsLoss()(ref_d(G0(z)), torch.ones(BATCH, 1)).backward()
    assert torch.allclose(g_grad, G0.net[0].weight.grad, atol=1e-6)
    t.train()


if __name__ == "__main__":
    main()
    print("OK")

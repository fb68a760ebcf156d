"""GG202 look-alike - two backward() calls per batch that share a tensor, done right.

Adversarial training of a small text generator against a style discriminator.
Each batch calls backward() twice and both losses start from the same generated
tensor ``fake``: the discriminator loss uses ``fake.detach()`` (its backward never
enters the generator graph) and the generator loss is the first and only backward
through the generator graph. Also a gradient-penalty style term is built with
``retain_graph`` inside autograd.grad, used once. No graph is traversed twice;
runs cleanly.

Modelled on: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/8
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB, SEQ_LEN, Z_DIM, HIDDEN = 20, 6, 8, 32
BATCH, EPOCHS = 4, 2


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(Z_DIM, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, z):
        h = torch.tanh(self.fc(z)).unsqueeze(1).repeat(1, SEQ_LEN, 1)
        out, _ = self.rnn(h)
        return F.softmax(self.out(out), dim=-1)


class StyleDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(SEQ_LEN * VOCAB, HIDDEN),
                                 nn.LeakyReLU(0.2), nn.Linear(HIDDEN, 1))

    def forward(self, x):
        return self.net(x)


def real_batches():
    tokens = torch.randint(0, VOCAB, (16, SEQ_LEN))
    return DataLoader(TensorDataset(F.one_hot(tokens, VOCAB).float()), batch_size=BATCH)


def input_grad_penalty(disc, real):
    real = real.clone().requires_grad_(True)
    score = disc(real).sum()
    (grad,) = torch.autograd.grad(score, real, create_graph=True)
    return grad.pow(2).sum(dim=(1, 2)).mean()


def train(gen, disc, loader):
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    log = {"d": [], "g": []}
    for epoch in range(EPOCHS):
        for (real,) in loader:
            z = torch.randn(real.size(0), Z_DIM)
            fake = gen(z)

            # discriminator: fake is detached, generator graph stays intact
            opt_d.zero_grad()
            d_loss = (F.softplus(disc(fake.detach())).mean()
                      + F.softplus(-disc(real)).mean()
                      + 0.1 * input_grad_penalty(disc, real))
            d_loss.backward()
            opt_d.step()

            # generator: first (and only) backward through gen's graph
            opt_g.zero_grad()
            g_loss = F.softplus(-disc(fake)).mean()
            g_loss.backward()
            opt_g.step()
            log["d"].append(d_loss.item())
            log["g"].append(g_loss.item())
        print(f"epoch {epoch}: d={sum(log['d']) / len(log['d']):.3f} "
              f"g={sum(log['g']) / len(log['g']):.3f}")
    return log


def main():
    torch.manual_seed(0)
    log = train(Generator(), StyleDiscriminator(), real_batches())
    assert len(log["g"]) == EPOCHS * 4


if __name__ == "__main__":
    main()
    print("OK")

"""Category GG407 - .grad used before any backward() has run (it is still None).

An InfoGAN script in the classic "one file, global networks" style keeps all
parameters of G, D and Q in one list and clears gradients with a hand-written
reset_grad() that zeroes p.grad.data for every parameter. The training loop calls
reset_grad() at the top of the first iteration, before any backward() has
created the .grad tensors, so it fails with:
    AttributeError: 'NoneType' object has no attribute 'data'

Modelled on: https://github.com/wiseodd/generative-models/issues/26
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

mb_size = 8
Z_dim = 6
X_dim = 20
h_dim = 32
c_dim = 4
lr = 1e-3
n_iters = 3

G = nn.Sequential(nn.Linear(Z_dim + c_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, X_dim), nn.Sigmoid())
D = nn.Sequential(nn.Linear(X_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, 1), nn.Sigmoid())
Q = nn.Sequential(nn.Linear(X_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, c_dim), nn.Softmax(dim=1))

G_params = list(G.parameters())
D_params = list(D.parameters())
Q_params = list(Q.parameters())
params = G_params + D_params + Q_params

G_solver = torch.optim.Adam(G_params, lr=lr)
D_solver = torch.optim.Adam(D_params, lr=lr)
Q_solver = torch.optim.Adam(G_params + Q_params, lr=lr)


def reset_grad():
    for p in params:
        p.grad.data.zero_()  # bug: GG407


def sample_c(size):
    idx = torch.randint(0, c_dim, (size,))
    return F.one_hot(idx, c_dim).float()


def sample_data(size):
    return (torch.rand(size, X_dim) > 0.5).float()


def run():
    for it in range(n_iters):
        reset_grad()
        X = sample_data(mb_size)
        z = torch.randn(mb_size, Z_dim)
        c = sample_c(mb_size)

        # Discriminator
        G_sample = G(torch.cat([z, c], 1))
        D_real, D_fake = D(X), D(G_sample.detach())
        D_loss = -torch.mean(torch.log(D_real + 1e-8) + torch.log(1 - D_fake + 1e-8))
        D_loss.backward()
        D_solver.step()
        reset_grad()

        # Generator
        D_fake = D(G(torch.cat([z, c], 1)))
        G_loss = -torch.mean(torch.log(D_fake + 1e-8))
        G_loss.backward()
        G_solver.step()
        reset_grad()

        # Mutual information term
        G_sample = G(torch.cat([z, c], 1))
        Q_c_given_x = Q(G_sample)
        mi_loss = torch.mean(-torch.sum(c * torch.log(Q_c_given_x + 1e-8), dim=1))
        mi_loss.backward()
        Q_solver.step()
        print(f"Iter-{it}; D_loss: {D_loss.item():.4f}; G_loss: {G_loss.item():.4f}; MI: {mi_loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        run()
    except AttributeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")

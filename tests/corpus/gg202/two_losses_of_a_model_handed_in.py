"""Two losses of one output of a model handed in, backpropagated one after the other (GG202).

`train(model, loader, lr)` builds its optimizer from `model.parameters()`, so `model` is an
`nn.Module` whose parameters require grad; its output's graph holds the tensors its layers
kept for backward. `l1.backward()` frees them, and `l2.backward()` needs them again:
"Trying to backward through the graph a second time" (checked with torch 2.13.0). The shape
of the forum threads on auxiliary losses written as two backward calls.

The same holds for a GAN whose generator and discriminator are handed in: the
discriminator's loss on `fake` without `.detach()` frees the generator's graph, which the
generator's loss then needs.

The look-alikes retain the graph for the second call, backpropagate the sum once, run the
model again for the second loss, or detach `fake` for the discriminator.
"""

import torch
import torch.nn.functional as F


def train(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        task = F.mse_loss(out, y)
        penalty = out.abs().mean()
        task.backward()  # expect: GG202
        penalty.backward()
        optimizer.step()


def train_gan(G, D, loader, z_dim):
    opt_d = torch.optim.Adam(D.parameters())
    opt_g = torch.optim.Adam(G.parameters())
    for real, _ in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()  # expect: GG202
        opt_d.step()
        g_loss = -D(fake).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


# --- look-alikes ---------------------------------------------------------------------------


def train_gan_detached(G, D, loader, z_dim):
    opt_d = torch.optim.Adam(D.parameters())
    opt_g = torch.optim.Adam(G.parameters())
    for real, _ in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        d_loss = D(fake.detach()).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = -D(fake).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


def train_retained(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        task = F.mse_loss(out, y)
        penalty = out.abs().mean()
        task.backward(retain_graph=True)
        penalty.backward()
        optimizer.step()


def train_summed(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        (F.mse_loss(out, y) + out.abs().mean()).backward()
        optimizer.step()


def train_two_forwards(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        model(x).abs().mean().backward()
        optimizer.step()

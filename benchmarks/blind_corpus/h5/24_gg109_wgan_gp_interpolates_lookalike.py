"""Category GG109 look-alike -- correct code.
A WGAN-GP critic step sets `requires_grad_(True)` on the interpolated samples (a
fresh leaf made from detached data) to take the gradient penalty, and a learnable
log-temperature is created with `requires_grad=True` and handed to the optimizer.
Neither is "forcing" requires_grad on a loss without history: the penalty and the
critic loss have real graphs, and the critic's weights change.
Modelled on: https://github.com/ronghuaiyang/arcface-pytorch/issues/56 (the
`requires_grad = True` pattern, here used legitimately)
"""
import os
import tempfile

import torch
import torch.nn as nn

HP = {"nz": 4, "nx": 8, "bs": 16, "n_critic": 3, "lambda_gp": 10.0, "lr": 1e-4}


def make_nets(nz, nx):
    G = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(), nn.Linear(32, nx))
    D = nn.Sequential(nn.Linear(nx, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    return G, D


def gradient_penalty(D, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).detach()
    interpolates.requires_grad_(True)
    d_out = D(interpolates)
    grads = torch.autograd.grad(d_out, interpolates, torch.ones_like(d_out), create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(0)
    G, D = make_nets(HP["nz"], HP["nx"])
    log_temp = torch.zeros(1, requires_grad=True)
    opt_D = torch.optim.Adam(list(D.parameters()) + [log_temp], lr=HP["lr"], betas=(0.0, 0.9))
    opt_G = torch.optim.Adam(G.parameters(), lr=HP["lr"], betas=(0.0, 0.9))
    data = torch.randn(128, HP["nx"]) + 2
    d0 = D[0].weight.detach().clone()
    for it in range(4):
        for _ in range(HP["n_critic"]):
            real = data[torch.randint(0, 128, (HP["bs"],))]
            fake = G(torch.randn(HP["bs"], HP["nz"])).detach()
            scale = log_temp.exp()
            d_loss = scale * (D(fake).mean() - D(real).mean()) + HP["lambda_gp"] * gradient_penalty(D, real, fake)
            opt_D.zero_grad()
            d_loss.backward()
            opt_D.step()
        g_loss = -D(G(torch.randn(HP["bs"], HP["nz"]))).mean()
        opt_G.zero_grad()
        g_loss.backward()
        opt_G.step()
        print(f"it {it}: d_loss {d_loss.item():.3f} g_loss {g_loss.item():.3f} temp {log_temp.exp().item():.3f}")
    assert not torch.equal(d0, D[0].weight.detach())
    with tempfile.TemporaryDirectory() as ckpt_dir:
        torch.save({"G": G.state_dict(), "D": D.state_dict(), "log_temp": log_temp.detach(),
                    "opt_D": opt_D.state_dict()}, os.path.join(ckpt_dir, "wgan_gp.pt"))


if __name__ == "__main__":
    main()
    print("OK")

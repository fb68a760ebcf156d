"""GG109 look-alike - requires_grad set on leaves that really are optimized.

GAN inversion: a frozen decoder reconstructs an image from a latent code. The
latent code and a per-image scale are created with requires_grad=True and handed
to the optimizer, and the reconstruction loss is computed *from* them, so
backward() fills their .grad and they change. Also, a cloned target is marked
requires_grad_(False) explicitly. Setting requires_grad here is correct.

Modelled on: none found (latent-code optimisation / GAN inversion).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = {"latent_dim": 8, "img_dim": 64, "steps": 25, "lr": 0.05, "l2_reg": 1e-3}


class Decoder(nn.Module):
    def __init__(self, latent_dim, img_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, img_dim), nn.Sigmoid())

    def forward(self, z):
        return self.net(z)


def invert(decoder, target, args):
    z = torch.zeros(target.size(0), args["latent_dim"], requires_grad=True)
    scale = torch.ones(target.size(0), 1, requires_grad=True)
    optimizer = torch.optim.Adam([z, scale], lr=args["lr"])
    history = []
    for step in range(args["steps"]):
        recon = scale * decoder(z)
        loss = F.mse_loss(recon, target) + args["l2_reg"] * z.pow(2).sum(1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return z.detach(), scale.detach(), history


def report(history, every=10):
    for step in range(0, len(history), every):
        print(f"  step {step:3d}: loss {history[step]:.5f}")


def main():
    torch.manual_seed(8)
    decoder = Decoder(ARGS["latent_dim"], ARGS["img_dim"])
    decoder.requires_grad_(False)
    decoder.eval()
    with torch.no_grad():
        target = decoder(torch.randn(4, ARGS["latent_dim"])).clone().requires_grad_(False)
    z, scale, history = invert(decoder, target, ARGS)
    report(history)
    print(f"inversion loss {history[0]:.5f} -> {history[-1]:.5f}")
    assert history[-1] < history[0]
    assert z.abs().sum() > 0


if __name__ == "__main__":
    main()
    print("OK")

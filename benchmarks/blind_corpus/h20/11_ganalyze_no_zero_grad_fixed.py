"""GG601 (fixed) - optimizer.zero_grad() at the start of every iteration.

Each step now uses exactly the gradient of the current batch's loss.

Modelled on: https://github.com/LoreGoetschalckx/GANalyze/issues/7
"""
import argparse

import torch
import torch.nn as nn


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--latent_dim", type=int, default=12)
    p.add_argument("--img_dim", type=int, default=20)
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--num_iters", type=int, default=4)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--alpha_range", type=float, default=0.5)
    p.add_argument("--check_grads", action="store_true", default=True)
    return p.parse_args(argv)


class Generator(nn.Module):
    def __init__(self, latent_dim, img_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, img_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Assessor(nn.Module):
    """Stands in for the pretrained memorability / aesthetics regressor."""

    def __init__(self, img_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(img_dim, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x).squeeze(1)


class OneDirection(nn.Module):
    """The transformer: z + alpha * w (w is the learned direction)."""

    def __init__(self, latent_dim):
        super().__init__()
        self.w = nn.Parameter(torch.randn(1, latent_dim) * 0.1)

    def forward(self, z, alpha):
        return z + alpha.unsqueeze(1) * self.w


def freeze(module):
    for p in module.parameters():
        p.requires_grad_(False)
    return module.eval()


def train(args, generator, assessor, transformer, optimizer, criterion):
    grad_mismatch = []
    for batch_start in range(args.num_iters):
        optimizer.zero_grad()  # fixed: GG601
        z = torch.randn(args.batch_size, args.latent_dim)
        alpha = (torch.rand(args.batch_size) * 2 - 1) * args.alpha_range
        with torch.no_grad():
            out_score = assessor(generator(z))
        target = torch.clamp(out_score + alpha, 0.0, 1.0)
        gen_images = generator(transformer(z, alpha))
        out_score_new = assessor(gen_images)
        loss = criterion(out_score_new, target)
        if args.check_grads:
            expected = torch.autograd.grad(loss, transformer.w, retain_graph=True)[0]
        loss.backward()
        if args.check_grads:
            grad_mismatch.append(not torch.allclose(transformer.w.grad, expected))
        optimizer.step()
        print(f"[{batch_start}] loss {loss.item():.5f}")
    return grad_mismatch


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(0)
    generator = freeze(Generator(args.latent_dim, args.img_dim))
    assessor = freeze(Assessor(args.img_dim))
    transformer = OneDirection(args.latent_dim)
    optimizer = torch.optim.Adam(transformer.parameters(), lr=args.lr)
    criterion = nn.MSELoss()
    return train(args, generator, assessor, transformer, optimizer, criterion)


if __name__ == "__main__":
    mismatch = main([])
    assert not any(mismatch)
    print("FIXED: ok")

"""GG609 - gradient clipping applied to gradients the GradScaler is still scaling.

Diffusion-style fine-tuning loop with mixed precision: the loss is scaled with
scaler.scale(loss).backward(), then clip_grad_norm_ runs straight away, before
scaler.unscale_(optimizer).  The clipping sees gradients multiplied by the loss
scale (65536 at the start), so it always clips them to max norm 1.0;
scaler.step() then divides by 65536 again, and the real update is about 65536
times smaller than intended.  Training stalls.
No error is raised (silent).

Modelled on: https://github.com/harubaru/waifu-diffusion/issues/64
"""
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="toy denoiser fine-tune")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--clip_grad_norm", type=float, default=1.0)
    parser.add_argument("--fp16", action="store_true", default=True)
    parser.add_argument("--num_timesteps", type=int, default=100)
    return parser.parse_args(argv)


class TinyDenoiser(nn.Module):
    """Predicts the noise that was added to a latent, conditioned on the timestep."""

    def __init__(self, dim=16, hidden=64, t_dim=8):
        super().__init__()
        self.t_embed = nn.Sequential(nn.Linear(1, t_dim), nn.SiLU())
        self.net = nn.Sequential(nn.Linear(dim + t_dim, hidden), nn.SiLU(),
                                 nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, noisy, t):
        return self.net(torch.cat([noisy, self.t_embed(t.float().unsqueeze(-1))], dim=-1))


def add_noise(latents, noise, t, num_timesteps):
    alpha_bar = torch.cos(t.float() / num_timesteps * 1.5707) ** 2
    a = alpha_bar.sqrt().unsqueeze(-1)
    return a * latents + (1 - a ** 2).clamp_min(0).sqrt() * noise


def train(args, unet, loader, optimizer, scaler):
    unet.train()
    logs = []
    for epoch in range(args.epochs):
        for step, (latents,) in enumerate(loader):
            noise = torch.randn_like(latents)
            timesteps = torch.randint(0, args.num_timesteps, (latents.size(0),))
            noisy = add_noise(latents, noise, timesteps, args.num_timesteps)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.fp16):
                pred = unet(noisy, timesteps)
            loss = F.mse_loss(pred.float(), noise)

            scaler.scale(loss).backward()
            if args.clip_grad_norm is not None:
                gnorm = torch.nn.utils.clip_grad_norm_(unet.parameters(), args.clip_grad_norm)  # bug: GG609
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            logs.append({"loss": loss.item(), "grad_norm": gnorm.item()})
            print(f"epoch {epoch} step {step} loss {loss.item():.4f} grad_norm {gnorm.item():.1f}")
    return logs


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(16, 16)), batch_size=args.batch_size, shuffle=False)
    unet = TinyDenoiser()
    start = copy.deepcopy(unet)
    optimizer = torch.optim.SGD(unet.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler("cpu", enabled=args.fp16)
    logs = train(args, unet, loader, optimizer, scaler)
    moved = torch.sqrt(sum(((a.detach() - b.detach()) ** 2).sum()
                           for a, b in zip(unet.parameters(), start.parameters()))).item()
    return args, logs, moved


if __name__ == "__main__":
    args, logs, moved = main([])
    # with clipping at 1.0 and lr 0.05, two steps should move the weights by roughly 0.1
    expected = args.lr * args.clip_grad_norm * len(logs)
    if moved < expected * 1e-3:
        print(f"BUGGY: weights moved {moved:.2e} instead of ~{expected:.2f}; clipped norm seen was "
              f"{logs[0]['grad_norm']:.0f} (still scaled)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

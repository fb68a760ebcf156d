"""GG609 - gradient clipping on gradients a GradScaler still scales (no unscale_) (FIXED).

Fix: scaler.unscale_(optimizer) before clip_grad_norm_.

A diffusion-style denoiser trainer uses torch.amp autocast plus a GradScaler.
The step helper calls clip_grad_norm_(..., clip_grad_norm) right after
scaler.scale(loss).backward(), without scaler.unscale_(optimizer) first.  The
gradients are still multiplied by the loss scale (65536 at start), so the
clip threshold is compared with a norm 65536x too large and every update is
crushed to ~max_norm/scale: training effectively stalls.  Silent: no error;
the norm seen by clipping equals loss-scale times the real gradient norm.

Modelled on: https://github.com/victorchall/EveryDream2trainer/pull/175
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = {"dim": 32, "t_embed": 8, "batch": 16, "lr": 1e-3, "clip_grad_norm": 1.0, "steps": 3, "T": 100}


class TimeEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half) / half)
        ang = t.float()[:, None] * freqs[None]
        return torch.cat([ang.sin(), ang.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, dim, t_embed):
        super().__init__()
        self.temb = TimeEmbedding(t_embed)
        self.net = nn.Sequential(nn.Linear(dim + t_embed, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, self.temb(t)], dim=-1))


def diffusion_loss(model, x0, T):
    t = torch.randint(0, T, (x0.size(0),), generator=torch.Generator().manual_seed(1))
    noise = torch.randn(x0.shape, generator=torch.Generator().manual_seed(2))
    alpha_bar = torch.cos(t.float() / T * math.pi / 2)[:, None] ** 2
    xt = alpha_bar.sqrt() * x0 + (1 - alpha_bar).sqrt() * noise
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pred = model(xt, t)
    return F.mse_loss(pred.float(), noise)


def true_grad_norm(model, x0, T):
    m = copy.deepcopy(model)
    diffusion_loss(m, x0, T).backward()
    return torch.norm(torch.stack([p.grad.norm() for p in m.parameters()])).item()


class Trainer:
    def __init__(self, model, args):
        self.model, self.args = model, args
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args["lr"])
        self.scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
        self.grad_norm_log = []

    def step(self, x0):
        self.model.train()
        loss = diffusion_loss(self.model, x0, self.args["T"])
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args["clip_grad_norm"])  # fixed: GG609
        self.grad_norm_log.append(norm.item())
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item()


def main():
    torch.manual_seed(0)
    model = Denoiser(ARGS["dim"], ARGS["t_embed"])
    trainer = Trainer(model, ARGS)
    x0 = torch.randn(ARGS["batch"], ARGS["dim"])
    ref = true_grad_norm(model, x0, ARGS["T"])
    scale = trainer.scaler.get_scale()
    for i in range(ARGS["steps"]):
        loss = trainer.step(x0)
        print(f"step {i}: loss={loss:.4f} grad_norm={trainer.grad_norm_log[-1]:.2f}")
    return trainer.grad_norm_log[0] / ref, scale


if __name__ == "__main__":
    ratio, scale = main()
    assert abs(ratio - 1) < 1e-2
    print("FIXED: ok")

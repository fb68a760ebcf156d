"""GG609 - gradient clipping on gradients the GradScaler still scales.

A weather-emulator ``Trainer`` trains with mixed precision: the loss is
multiplied by the GradScaler before backward, then gradients are clipped with
``clip_grad_norm_`` and finally ``scaler.step(optimizer)`` unscales and steps.
``scaler.unscale_(optimizer)`` is never called before clipping, so the norm
is measured on gradients that are ``scale`` times too large and the
``grad_max_norm`` threshold is compared with the wrong quantity.  Silent
effect: the reported gradient norm is ``scaler.get_scale()`` times the true
norm, so clipping fires on every step and shrinks the real update by roughly
that factor.

Modelled on: https://github.com/NCAR/miles-credit/pull/141
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONF = {"trainer": {"grad_max_norm": 1.0, "amp": True, "lr": 1e-3, "batches_per_epoch": 3, "init_scale": 2.0 ** 10},
        "model": {"channels": 4, "hidden": 16, "lat": 8, "lon": 16}}


class CrossFormerLite(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.encode = nn.Conv2d(channels, hidden, 3, padding=1)
        self.mix = nn.Sequential(nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden), nn.GELU(),
                                 nn.Conv2d(hidden, hidden, 1))
        self.decode = nn.Conv2d(hidden, channels, 3, padding=1)

    def forward(self, x):
        h = self.encode(x)
        h = h + self.mix(h)
        return x + self.decode(h)


def latitude_weights(n_lat):
    lat = torch.linspace(-80, 80, n_lat)
    w = torch.cos(torch.deg2rad(lat))
    return (w / w.mean()).view(1, 1, n_lat, 1)


class Trainer:
    def __init__(self, model, conf):
        self.model = model
        self.conf = conf["trainer"]
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=self.conf["lr"])
        self.scaler = torch.amp.GradScaler("cpu", init_scale=self.conf["init_scale"], enabled=self.conf["amp"])
        self.lat_w = latitude_weights(conf["model"]["lat"])
        self.grad_norms = []
        self.true_norms = []

    def loss_fn(self, pred, target):
        return (self.lat_w * (pred.float() - target) ** 2).mean()

    def train_one_epoch(self, loader, epoch):
        self.model.train()
        for i, (x, y) in enumerate(loader):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.conf["amp"]):
                pred = self.model(x)
            loss = self.loss_fn(pred, y)
            true = torch.autograd.grad(loss, list(self.model.parameters()), retain_graph=True)
            self.true_norms.append(float(torch.sqrt(sum(g.float().pow(2).sum() for g in true))))
            self.optimizer.zero_grad(set_to_none=True)
            self.scaler.scale(loss).backward()
            if self.conf["grad_max_norm"] > 0:
                norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.conf["grad_max_norm"])  # bug: GG609
                self.grad_norms.append(float(norm))
            self.scaler.step(self.optimizer)
            self.scaler.update()
            print(f"epoch {epoch} batch {i}: loss {loss.item():.4f} grad_norm {self.grad_norms[-1]:.3f}")
            if i + 1 >= self.conf["batches_per_epoch"]:
                break


def main():
    torch.manual_seed(0)
    m = CONF["model"]
    x = torch.randn(12, m["channels"], m["lat"], m["lon"])
    y = x + 0.1 * torch.randn_like(x)
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    trainer = Trainer(CrossFormerLite(m["channels"], m["hidden"]), CONF)
    trainer.train_one_epoch(loader, 0)
    return trainer.grad_norms[0] / trainer.true_norms[0], CONF["trainer"]["init_scale"]


if __name__ == "__main__":
    ratio, scale = main()
    if abs(ratio / scale - 1) < 1e-2:
        print(f"BUGGY: clip_grad_norm_ measured a norm {ratio:.0f}x the true gradient norm (still scaled by GradScaler)")
        sys.exit(0)
    raise SystemExit(f"NO BUG (ratio {ratio:.3f})")

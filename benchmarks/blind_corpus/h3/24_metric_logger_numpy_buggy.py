"""GG502 - .numpy() on a tensor that requires grad.

A Trainer collects the step's losses in a dict and hands it to a
MetricLogger that stores everything as NumPy scalars for a CSV-like history.
The dict still holds the live loss tensors (they require grad), so the
logger's conversion fails:
RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
"""
import sys
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MetricLogger:
    def __init__(self):
        self.history = defaultdict(list)

    def log(self, step, metrics):
        for name, value in metrics.items():
            if torch.is_tensor(value):
                value = value.cpu().numpy()  # bug: GG502
            self.history[name].append(np.asarray(value, dtype=np.float32))

    def summary(self):
        return {k: float(np.mean(v)) for k, v in self.history.items()}


class AutoEncoder(nn.Module):
    def __init__(self, d=24, z=6):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 12), nn.GELU(), nn.Linear(12, z))
        self.decoder = nn.Sequential(nn.Linear(z, 12), nn.GELU(), nn.Linear(12, d))

    def forward(self, x):
        z = self.encoder(x)
        return self.decoder(z), z


class Trainer:
    def __init__(self, model, lr=1e-3, l1=1e-3):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.l1 = l1
        self.logger = MetricLogger()
        self.global_step = 0

    def train_step(self, x):
        recon, z = self.model(x)
        losses = {"recon": F.mse_loss(recon, x), "sparsity": self.l1 * z.abs().mean()}
        losses["total"] = losses["recon"] + losses["sparsity"]
        self.opt.zero_grad()
        losses["total"].backward()
        self.opt.step()
        self.global_step += 1
        return losses

    def train_epoch(self, data, bs=16):
        self.model.train()
        for i in range(0, len(data), bs):
            losses = self.train_step(data[i:i + bs])
            losses["lr"] = self.opt.param_groups[0]["lr"]
            self.logger.log(self.global_step, losses)
        return self.logger.summary()


def main():
    torch.manual_seed(0)
    data = torch.randn(64, 24)
    trainer = Trainer(AutoEncoder())
    for epoch in range(2):
        summary = trainer.train_epoch(data)
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.4f}" for k, v in summary.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")

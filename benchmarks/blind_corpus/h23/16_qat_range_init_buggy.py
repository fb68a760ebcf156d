"""GG604 - optimizer built before the model's parameters were replaced.

A quantization-aware-training script wraps the activations of an MLP in
``SymmetricQuantizer`` modules with a learnable ``scale``.  The optimizer is
created right after the model, then a range-initialisation pass runs on a
calibration batch.  ``init_range`` *replaces* ``self.scale`` with a brand-new
``nn.Parameter``; the optimizer still holds the old tensor.  Silent effect:
the new scales receive gradients every step but are never updated by the
optimizer (they stay at their calibrated value), while the stale ones the
optimizer owns are no longer part of the model.

Modelled on: https://github.com/openvinotoolkit/nncf/pull/327
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"in_dim": 12, "hidden": 32, "classes": 3, "bits": 8, "lr": 1e-2, "steps": 5}


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


class SymmetricQuantizer(nn.Module):
    def __init__(self, bits=8):
        super().__init__()
        self.levels = 2 ** (bits - 1) - 1
        self.scale = nn.Parameter(torch.ones(1))
        self.initialized = False

    @torch.no_grad()
    def init_range(self, x):
        init = x.abs().max().clamp(min=1e-4).reshape(1)
        self.scale = nn.Parameter(init)  # bug: GG604
        self.initialized = True

    def forward(self, x):
        s = self.scale.abs() + 1e-8
        q = RoundSTE.apply(torch.clamp(x / s, -1, 1) * self.levels)
        return q / self.levels * s


class QuantMLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["in_dim"], cfg["hidden"])
        self.q1 = SymmetricQuantizer(cfg["bits"])
        self.fc2 = nn.Linear(cfg["hidden"], cfg["hidden"])
        self.q2 = SymmetricQuantizer(cfg["bits"])
        self.out = nn.Linear(cfg["hidden"], cfg["classes"])

    def forward(self, x):
        x = self.q1(F.relu(self.fc1(x)))
        x = self.q2(F.relu(self.fc2(x)))
        return self.out(x)

    def quantizers(self):
        return [m for m in self.modules() if isinstance(m, SymmetricQuantizer)]


@torch.no_grad()
def run_range_init(model, calib):
    h = F.relu(model.fc1(calib))
    model.q1.init_range(h)
    h = F.relu(model.fc2(model.q1(h)))
    model.q2.init_range(h)


def build_optimizer(model, lr):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)


def main():
    torch.manual_seed(0)
    model = QuantMLP(CONFIG)
    optimizer = build_optimizer(model, CONFIG["lr"])
    run_range_init(model, torch.randn(64, CONFIG["in_dim"]))
    calibrated = [q.scale.detach().clone() for q in model.quantizers()]
    for step in range(CONFIG["steps"]):
        x, y = torch.randn(16, CONFIG["in_dim"]), torch.randint(0, CONFIG["classes"], (16,))
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")
    moved = [not torch.equal(c, q.scale.detach()) for c, q in zip(calibrated, model.quantizers())]
    return moved


if __name__ == "__main__":
    moved = main()
    if not any(moved):
        print("BUGGY: quantizer scales got gradients but never changed (optimizer holds the replaced parameters)")
        sys.exit(0)
    raise SystemExit("NO BUG")

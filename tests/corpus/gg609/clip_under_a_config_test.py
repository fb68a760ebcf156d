"""A trainer clips only when a configured limit is set, before the scaler unscales (GG609).

`Trainer.step` backpropagates `self.scaler.scale(loss)`, then, under `if self.max_norm > 0:`,
clips the gradient norm and steps through the scaler. The test is a configuration flag: it
says nothing of whether the scaler is on, and when it holds the clip sees gradients still
multiplied by the scale, so after `scaler.step` unscales them their norm is about
`max_norm / scale` (checked with torch 2.13.0 below).

The look-alikes are correct: one clips only when mixed precision is off (`if not
self.use_amp:`, the scaler built with `enabled=self.use_amp` hands the gradients back
unscaled then), one unscales inside the same `if` before clipping.

Modelled on Deci-AI/super-gradients#653, whose trainer clipped by a configured
`clip_grad_norm` after a scaled backward and before the scaler's step; the fix unscales the
gradients first (https://github.com/Deci-AI/super-gradients/pull/653).
"""

import torch
from torch import nn


class Trainer:
    def __init__(self, max_norm, use_amp=True):
        torch.manual_seed(0)
        self.model = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.0)
        self.use_amp = use_amp
        self.scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, enabled=use_amp)
        self.max_norm = max_norm

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        if self.max_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)  # expect: GG609
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return _norm(self.model)


class ClipsOnlyWithoutAmp(Trainer):
    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        if not self.use_amp:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return _norm(self.model)


class UnscalesInTheSameIf(Trainer):
    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        if self.max_norm > 0:
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return _norm(self.model)


def _norm(model):
    return float(torch.sqrt(sum((p.grad**2).sum() for p in model.parameters())))


if __name__ == "__main__":
    x, y = 10 * torch.randn(8, 4), 10 * torch.randn(8, 1)
    buggy = Trainer(max_norm=1.0).step(x, y)
    assert buggy < 0.01, f"the clip saw unscaled gradients ({buggy})"
    assert abs(UnscalesInTheSameIf(max_norm=1.0).step(x, y) - 1.0) < 1e-3
    assert ClipsOnlyWithoutAmp(max_norm=1.0, use_amp=False).step(x, y) <= 1.0 + 1e-3
    assert ClipsOnlyWithoutAmp(max_norm=1.0, use_amp=True).step(x, y) > 1.0
    print("ok", buggy)

"""An AMP trainer clips in a helper method before the scaler unscales (GG609).

`train_step` backpropagates `self.scaler.scale(loss)` and then calls `self._clip()`, whose
first statement clips the gradients by value: they are still multiplied by the scale, so the
limit is the scale times too tight once `scaler.step` unscales them (checked with torch
2.13.0 below: every clipped gradient ends up far below the limit). The look-alike helper
unscales through the scaler first, which is the documented order.

Modelled on an AMP transformer trainer of the team's second blind corpus (gradient clipping
factored into a `_clip_gradients()` helper).
"""

import torch
from torch import nn


class AmpTrainer:
    def __init__(self, clip=0.5):
        self.model = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.0)
        self.scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
        self.clip = clip

    def _clip(self):
        torch.nn.utils.clip_grad_value_(self.model.parameters(), self.clip)  # expect: GG609

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        self._clip()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return max(p.grad.abs().max().item() for p in self.model.parameters())


class UnscalingTrainer:
    def __init__(self, clip=0.5):
        self.model = nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.0)
        self.scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
        self.clip = clip

    def _unscale_and_clip(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_value_(self.model.parameters(), self.clip)

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        self._unscale_and_clip()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return max(p.grad.abs().max().item() for p in self.model.parameters())


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = 10 * torch.randn(8, 4), 10 * torch.randn(8, 1)
    assert AmpTrainer().train_step(x, y) < 0.01, "the clip applied to unscaled gradients"
    assert UnscalingTrainer().train_step(x, y) > 0.1

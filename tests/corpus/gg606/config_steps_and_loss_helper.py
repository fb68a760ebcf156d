"""Accumulation every `cfg["accum_steps"]` batches, the loss from a helper method (GG606).

The trainer steps once every `self.cfg["accum_steps"]` batches but backpropagates the loss
its `compute_loss` method returns undivided: the step applies the sum of four micro-batch
gradients, four times the averaged one (checked with torch 2.13.0 below against one step
on the whole batch). The guard's k is a setting read by key, and `compute_loss` only
returns a loss module's value, so the loss is followed into it.

Look-alikes: a division by another setting (its meaning is not known) and a helper with more
than a `return` (not followed); `negatives_config_steps_divided.py` has a helper that divides
by the setting itself (a file that divides by k anywhere is never flagged).

Modelled on the ViT fine-tuning case of the team's blind corpus (h14), whose report is an
accumulation loop of fredzzhang/atlas.
"""

import torch
import torch.nn.functional as F
from torch import nn

CFG = {"accum_steps": 4, "lr": 0.1, "scale": 2}


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])

    def compute_loss(self, x, y):
        return F.mse_loss(self.model(x), y)

    def kept_loss(self, x, y):
        loss = F.mse_loss(self.model(x), y)
        return loss * 0.25

    def train(self, batches):
        for i, (x, y) in enumerate(batches):
            loss = self.compute_loss(x, y)
            loss.backward()  # expect: GG606
            if (i + 1) % self.cfg["accum_steps"] == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()

    def train_other_setting(self, batches):
        for i, (x, y) in enumerate(batches):
            loss = self.compute_loss(x, y) / self.cfg["scale"]
            loss.backward()
            if (i + 1) % self.cfg["accum_steps"] == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()

    def train_kept(self, batches):
        for i, (x, y) in enumerate(batches):
            self.kept_loss(x, y).backward()
            if (i + 1) % self.cfg["accum_steps"] == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()


def gradient_after(method, batches):
    torch.manual_seed(0)
    trainer = Trainer(nn.Linear(3, 1), CFG)
    trainer.optimizer.step = lambda: None  # keep the gradients to compare them
    trainer.optimizer.zero_grad = lambda: None
    getattr(trainer, method)(batches)
    return trainer.model.weight.grad.clone()


def main():
    batches = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(4)]
    torch.manual_seed(0)
    whole = nn.Linear(3, 1)
    x = torch.cat([b[0] for b in batches])
    y = torch.cat([b[1] for b in batches])
    F.mse_loss(whole(x), y).backward()
    undivided = gradient_after("train", batches)
    assert torch.allclose(undivided, 4 * whole.weight.grad)
    gradient_after("train_other_setting", batches)
    gradient_after("train_kept", batches)


if __name__ == "__main__":
    main()

"""Look-alike for GG606: the loss helper divides by the accumulation setting itself.

`averaged_loss` returns the loss divided by `self.cfg["accum_steps"]`, so the four
micro-batch gradients add up to the gradient of the whole batch (checked with torch 2.13.0
below). Companion of `config_steps_and_loss_helper.py`.
"""

import torch
import torch.nn.functional as F
from torch import nn

CFG = {"accum_steps": 4, "lr": 0.1}


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])

    def averaged_loss(self, x, y):
        return F.mse_loss(self.model(x), y) / self.cfg["accum_steps"]

    def train(self, batches):
        for i, (x, y) in enumerate(batches):
            self.averaged_loss(x, y).backward()
            if (i + 1) % self.cfg["accum_steps"] == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()


def main():
    batches = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(4)]
    torch.manual_seed(0)
    trainer = Trainer(nn.Linear(3, 1), CFG)
    trainer.optimizer.step = lambda: None
    trainer.optimizer.zero_grad = lambda: None
    trainer.train(batches)
    torch.manual_seed(0)
    whole = nn.Linear(3, 1)
    x = torch.cat([b[0] for b in batches])
    y = torch.cat([b[1] for b in batches])
    F.mse_loss(whole(x), y).backward()
    assert torch.allclose(trainer.model.weight.grad, whole.weight.grad)


if __name__ == "__main__":
    main()

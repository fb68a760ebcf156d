"""Multi-task fine-tuning step that sums per-task losses before one backward().

Modelled on: https://github.com/ray-project/ray/pull/40940 (counterpart)

Looks like the leaking `loss_sum += loss`: loss tensors with history are
summed with += inside a loop.  But this sum is the objective of the current
step: backward() runs on it right after the loop and it is rebuilt from zero
at the next step.  The epoch statistic is accumulated from loss.detach().
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class SharedEncoderModel(nn.Module):
    def __init__(self, dim=12, n_classes=(3, 5)):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 16), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(16, c) for c in n_classes)

    def forward(self, x):
        h = self.encoder(x)
        return [head(h) for head in self.heads]


def task_losses(model, batch):
    logits = model(batch["x"])
    return [F.cross_entropy(lg, y) for lg, y in zip(logits, batch["targets"])]


def batches(n, dim=12, bs=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        x = torch.randn(bs, dim, generator=g)
        yield {"x": x, "targets": [torch.randint(0, 3, (bs,), generator=g),
                                   torch.randint(0, 5, (bs,), generator=g)]}


def training_function(config):
    model = SharedEncoderModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    epoch_loss = torch.zeros(())
    for batch in batches(config.steps):
        optimizer.zero_grad()
        loss = torch.zeros(())
        for task_loss, w in zip(task_losses(model, batch), config.weights):
            loss += w * task_loss
        loss.backward()
        optimizer.step()
        epoch_loss += loss.detach()
    return epoch_loss


if __name__ == "__main__":
    torch.manual_seed(0)
    total = training_function(SimpleNamespace(lr=1e-3, steps=4, weights=(1.0, 0.5)))
    assert total.grad_fn is None and not total.requires_grad
    print("OK")

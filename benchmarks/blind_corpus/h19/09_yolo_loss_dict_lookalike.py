"""GG203 look-alike - losses summed across iterations on purpose, then consumed.

Detector training with gradient accumulation: the losses of ``accum_steps``
micro-batches are summed into ``accum_loss`` (a tensor with history) and that sum
is backpropagated at the end of each window, which frees the graphs; the sum is
then reset. For logging, the running totals use ``loss.detach()`` and a list of
per-batch floats. Looks like ``total += loss`` but no graph outlives its window;
runs cleanly.

Modelled on: https://github.com/MultimediaTechLab/YOLO/pull/83
"""
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"num_classes": 3, "batch_size": 2, "accum_steps": 3, "epochs": 2, "lr": 1e-3}


class Detector(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.SiLU(),
            nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU(),
        )
        self.pred = nn.Conv2d(16, 5 + num_classes, 1)

    def forward(self, x):
        return self.pred(self.body(x)).flatten(2).transpose(1, 2)


def compute_losses(preds, targets):
    obj_t = targets[..., 4]
    mask = obj_t > 0.5
    losses = {
        "box": F.l1_loss(preds[..., :4][mask], targets[..., :4][mask]),
        "obj": F.binary_cross_entropy_with_logits(preds[..., 4], obj_t),
        "cls": F.cross_entropy(preds[..., 5:][mask], targets[..., 5][mask].long()),
    }
    return sum(losses.values()), losses


def make_loader():
    n, cells = 12, 64
    imgs = torch.randn(n, 3, 32, 32)
    tgt = torch.zeros(n, cells, 6)
    tgt[..., :4] = torch.rand(n, cells, 4)
    tgt[..., 4] = 1.0
    tgt[..., 5] = torch.randint(0, CFG["num_classes"], (n, cells)).float()
    return DataLoader(TensorDataset(imgs, tgt), batch_size=CFG["batch_size"])


def train_one_epoch(model, loader, optimizer, accum_steps):
    model.train()
    running = defaultdict(lambda: torch.zeros(()))
    batch_losses = []
    accum_loss = 0.0
    optimizer.zero_grad()
    for step, (imgs, tgt) in enumerate(loader, start=1):
        loss, parts = compute_losses(model(imgs), tgt)
        accum_loss = accum_loss + loss / accum_steps
        for name, val in parts.items():
            running[name] += val.detach()
        batch_losses.append(loss.item())
        if step % accum_steps == 0:
            accum_loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            accum_loss = 0.0
    return {k: v / len(batch_losses) for k, v in running.items()}, batch_losses


def main():
    torch.manual_seed(0)
    model = Detector(CFG["num_classes"])
    optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9)
    loader = make_loader()
    for epoch in range(CFG["epochs"]):
        means, per_batch = train_one_epoch(model, loader, optimizer, CFG["accum_steps"])
        assert all(v.grad_fn is None for v in means.values())
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v.item():.3f}" for k, v in means.items())
              + f" (last batch {per_batch[-1]:.3f})")


if __name__ == "__main__":
    main()
    print("OK")

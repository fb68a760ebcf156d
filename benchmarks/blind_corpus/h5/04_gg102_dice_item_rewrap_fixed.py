"""Category GG102 -- backward() on a value that went through .item() and was re-wrapped.
Status: fixed -- the reductions stay tensors and the helper returns the
tensor expression itself.
A soft Dice loss helper reduces intersection and union with `.item()` (the author
wanted "clean" Python numbers for logging), finishes the formula in plain floats and
hands back `torch.tensor(dice_loss)`.  The tensor is a fresh constant with no
history, so `loss.backward()` in the trainer raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/kevinzakka/pytorch-goodies/issues/11
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_ch": 3, "n_classes": 2, "img": 16, "bs": 4, "epochs": 2, "lr": 1e-3, "eps": 1e-6}


class SegHead(nn.Module):
    def __init__(self, in_ch, n_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(in_ch, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.classifier = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        return self.classifier(self.body(x))


def dice_loss(logits, true, eps=1e-7):
    """Soft dice loss over all classes."""
    n_classes = logits.shape[1]
    true_1_hot = torch.eye(n_classes)[true.squeeze(1)].permute(0, 3, 1, 2).float()
    probas = torch.softmax(logits, dim=1)
    dims = (0,) + tuple(range(2, true.ndimension()))
    intersection = torch.sum(probas * true_1_hot, dims).sum()
    cardinality = torch.sum(probas + true_1_hot, dims).sum()
    dice = 2.0 * intersection / (cardinality + eps)
    return 1.0 - dice


class Trainer:
    def __init__(self, cfg, workdir):
        self.cfg, self.workdir = cfg, workdir
        self.model = SegHead(cfg["in_ch"], cfg["n_classes"])
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=cfg["lr"])
        self.best = float("inf")

    def train_step(self, images, masks):
        self.model.train()
        logits = self.model(images)
        loss = dice_loss(logits, masks, self.cfg["eps"])
        self.opt.zero_grad()
        loss.backward()  # fixed: GG102
        self.opt.step()
        return loss.item()

    def save(self, epoch, value):
        if value < self.best:
            self.best = value
            torch.save({"epoch": epoch, "model": self.model.state_dict()},
                       os.path.join(self.workdir, "best.pt"))

    def fit(self, loader):
        for epoch in range(self.cfg["epochs"]):
            losses = [self.train_step(x, y) for x, y in loader]
            mean = sum(losses) / len(losses)
            print(f"[epoch {epoch:02d}] dice loss={mean:.4f}")
            self.save(epoch, mean)


def main():
    torch.manual_seed(0)
    c = CONFIG
    x = torch.randn(12, c["in_ch"], c["img"], c["img"])
    y = (x[:, :1] > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=c["bs"], shuffle=True)
    with tempfile.TemporaryDirectory() as tmp:
        Trainer(c, tmp).fit(loader)


if __name__ == "__main__":
    main()
    print("FIXED: ok")

"""Segmentation fine-tuning with a mixed focal + dice loss.

Modelled on: https://github.com/marshuang80/gloria/issues/19

A user fine-tuning a U-Net on SIIM segmentation hit
"grad can be implicitly created only for scalar outputs" at loss.backward().
The MixedLoss helper combined a focal term and a dice term but the dice term
was computed per sample (one value per image) and never reduced, so the loss
handed to backward() was a vector of batch_size elements.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyUNet(nn.Module):
    def __init__(self, in_ch=1, width=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_ch, width, 3, padding=1), nn.ReLU())
        self.down = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(2 * width, 1, 1)

    def forward(self, x):
        e = self.enc(x)
        m = self.up(self.mid(self.down(e)))
        return self.head(torch.cat([e, m], dim=1))


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0):
        super().__init__()
        self.gamma = gamma

    def forward(self, logits, target):
        bce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
        pt = torch.exp(-bce)
        return ((1 - pt) ** self.gamma * bce).mean()


def dice_per_sample(logits, target, eps=1.0):
    prob = torch.sigmoid(logits).flatten(1)
    target = target.flatten(1)
    inter = (prob * target).sum(1)
    return 1 - (2 * inter + eps) / (prob.sum(1) + target.sum(1) + eps)


class MixedLoss(nn.Module):
    def __init__(self, alpha=10.0):
        super().__init__()
        self.alpha = alpha
        self.focal = FocalLoss()

    def forward(self, logits, target):
        # dice is one value per image; the mixture keeps that shape
        return self.alpha * self.focal(logits, target) + dice_per_sample(logits, target)


class SegmentationTask:
    def __init__(self, model, loss_fn, lr):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def training_step(self, batch):
        images, masks = batch
        logits = self.model(images)
        loss = self.loss_fn(logits, masks)
        self.optimizer.zero_grad()
        loss.backward()  # bug: GG501
        self.optimizer.step()
        return loss


def make_batches(n, batch_size):
    for _ in range(n):
        x = torch.randn(batch_size, 1, 16, 16)
        y = (torch.rand(batch_size, 1, 16, 16) > 0.7).float()
        yield x, y


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    task = SegmentationTask(TinyUNet(), MixedLoss(), args.lr)
    for batch in make_batches(2, args.batch_size):
        task.training_step(batch)


if __name__ == "__main__":
    try:
        main([])
        print("no error")
    except RuntimeError as err:
        print(f"BUGGY: {err}")

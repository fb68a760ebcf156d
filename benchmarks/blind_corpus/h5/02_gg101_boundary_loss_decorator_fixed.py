"""Category GG101 -- backward() on a value returned by a @torch.no_grad() function.
Status: fixed -- only the distance map is computed under no_grad; the
prediction terms keep their graph.
A segmentation script uses a boundary-aware loss module.  The distance map of the
ground truth needs no gradient, so the author decorated the loss's forward with
@torch.no_grad() -- which also turns off autograd for the prediction term.  The
combined loss returned to the training loop has no grad_fn, and backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/JunMa11/SegLossOdyssey/issues/17
"""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=24)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--alpha", type=float, default=0.3)
    return p.parse_args(argv)


class TinyUNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.mid = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(ch + 1, 1, 1)

    def forward(self, x):
        h = self.up(self.mid(self.down(x)))
        return self.head(torch.cat([h, x], dim=1))


def approx_distance_map(mask, iters=4):
    """Cheap signed distance approximation by repeated erosion/dilation."""
    inside, outside = mask.clone(), 1 - mask
    dist = torch.zeros_like(mask)
    for _ in range(iters):
        inside = -F.max_pool2d(-inside, 3, 1, 1)
        outside = -F.max_pool2d(-outside, 3, 1, 1)
        dist += inside - outside
    return dist / iters


class BoundaryDiceLoss(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, logits, target):
        probs = torch.sigmoid(logits)
        with torch.no_grad():
            dist = approx_distance_map(target)
        inter = (probs * target).sum((1, 2, 3))
        dice = 1 - (2 * inter + 1) / (probs.sum((1, 2, 3)) + target.sum((1, 2, 3)) + 1)
        boundary = (probs * -dist).mean((1, 2, 3))
        return ((1 - self.alpha) * dice + self.alpha * boundary).mean()


def train(model, loader, optimizer, criterion, epochs):
    history = []
    for epoch in range(epochs):
        for step, (img, mask) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(img), mask)
            loss.backward()  # fixed: GG101
            optimizer.step()
            history.append(loss.item())
        print(f"epoch {epoch}: mean loss {sum(history) / len(history):.4f}")
    return history


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(0)
    imgs = torch.rand(16, 1, args.size, args.size)
    masks = (imgs > 0.5).float()
    loader = DataLoader(TensorDataset(imgs, masks), batch_size=args.batch_size, shuffle=True)
    model = TinyUNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train(model, loader, optimizer, BoundaryDiceLoss(args.alpha), args.epochs)


if __name__ == "__main__":
    main([])
    print("FIXED: ok")

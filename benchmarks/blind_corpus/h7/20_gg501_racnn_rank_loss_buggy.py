"""GG501 - backward() without a gradient argument on a tensor with more than one element.

Mistake: a two-scale "recurrent attention" classifier trained with a
classification loss plus a hand-written pairwise ranking loss that pushes the
fine scale's true-class probability above the coarse scale's.  ``RankLoss``
returns the hinge per sample (it was only ever tried with batch size 1), the
trainer sums a dict of losses into ``total`` (a scalar plus a [batch] vector
broadcasts to [batch]) and calls ``total.backward()``.

torch raises: RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def options():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--classes", type=int, default=4)
    ap.add_argument("--margin", type=float, default=0.05)
    ap.add_argument("--rank-weight", type=float, default=1.0)
    ap.add_argument("--epochs", type=int, default=2)
    return ap.parse_args([])


class ScaleNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.fc = nn.Linear(8 * 16, classes)

    def forward(self, x):
        feats = self.conv(x)
        return self.fc(feats.flatten(1)), feats


class TwoScaleRACNN(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.coarse = ScaleNet(classes)
        self.fine = ScaleNet(classes)
        self.apn = nn.Linear(8 * 16, 3)

    def crop(self, x, box):
        cx, cy, half = torch.sigmoid(box).unbind(dim=1)
        theta = torch.zeros(x.size(0), 2, 3, device=x.device)
        theta[:, 0, 0] = 0.5 + 0.5 * half
        theta[:, 1, 1] = 0.5 + 0.5 * half
        theta[:, 0, 2] = cx - 0.5
        theta[:, 1, 2] = cy - 0.5
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)

    def forward(self, x):
        s1, feats = self.coarse(x)
        s2, _ = self.fine(self.crop(x, self.apn(feats.flatten(1))))
        return [s1, s2]


class RankLoss(nn.Module):
    def __init__(self, margin):
        super().__init__()
        self.margin = margin

    def forward(self, scores_coarse, scores_fine, target):
        p1 = F.softmax(scores_coarse, dim=1).gather(1, target.view(-1, 1)).squeeze(1)
        p2 = F.softmax(scores_fine, dim=1).gather(1, target.view(-1, 1)).squeeze(1)
        return torch.clamp(p1 - p2 + self.margin, min=0)


def do_batch(model, optimizer, images, labels, rank_loss, opt):
    scores = model(images)
    losses = {
        "cls_coarse": F.cross_entropy(scores[0], labels),
        "cls_fine": F.cross_entropy(scores[1], labels),
        "rank": opt.rank_weight * rank_loss(scores[0], scores[1], labels),
    }
    total = sum(losses.values())
    optimizer.zero_grad()
    total.backward()  # bug: GG501
    optimizer.step()
    return {k: v.mean().item() for k, v in losses.items()}


def main():
    opt = options()
    torch.manual_seed(0)
    ds = TensorDataset(torch.rand(16, 3, 16, 16), torch.randint(0, opt.classes, (16,)))
    loader = DataLoader(ds, batch_size=opt.batch_size, shuffle=True)
    model = TwoScaleRACNN(opt.classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rank_loss = RankLoss(opt.margin)
    for epoch in range(opt.epochs):
        for images, labels in loader:
            stats = do_batch(model, optimizer, images, labels, rank_loss, opt)
        print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.3f}" for k, v in stats.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

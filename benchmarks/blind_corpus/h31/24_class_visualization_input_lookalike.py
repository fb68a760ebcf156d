"""Projected-gradient adversarial example on a small classifier.

Modelled on: https://discuss.pytorch.org/t/how-to-define-a-leaf-tensor-in-pytorch-0-4-1/28461 (counterpart)

Looks like the failing visualiser: a tensor computed from other tensors (the
perturbed image, built from a gradient step and a clamp) has its
`requires_grad` flag set to True at the start of every iteration.  But each
iterate is `.detach()`-ed when it is produced, so it is a leaf without history
and flagging it is legitimate; the gradient is taken with torch.autograd.grad.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--eps", type=float, default=8 / 255)
    p.add_argument("--alpha", type=float, default=2 / 255)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--batch", type=int, default=4)
    return p.parse_args(argv)


class TinyClassifier(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class PGDAttack:
    def __init__(self, model, eps, alpha, steps):
        self.model = model.eval()
        self.eps, self.alpha, self.steps = eps, alpha, steps

    def project(self, x_adv, x):
        x_adv = torch.min(torch.max(x_adv, x - self.eps), x + self.eps)
        return x_adv.clamp(0.0, 1.0)

    def perturb(self, images, labels):
        x = images.clone().detach()
        x_adv = (x + torch.empty_like(x).uniform_(-self.eps, self.eps)).clamp(0, 1).detach()
        for _ in range(self.steps):
            x_adv.requires_grad = True
            loss = F.cross_entropy(self.model(x_adv), labels)
            grad, = torch.autograd.grad(loss, x_adv)
            x_adv = self.project(x_adv + self.alpha * grad.sign(), x).detach()
        return x_adv


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    model = TinyClassifier()
    images = torch.rand(args.batch, 3, 16, 16)
    labels = torch.randint(0, 10, (args.batch,))
    adv = PGDAttack(model, args.eps, args.alpha, args.steps).perturb(images, labels)
    return (adv - images).abs().max().item(), args.eps


if __name__ == "__main__":
    dist, eps = main([])
    assert dist <= eps + 1e-6
    print("OK")

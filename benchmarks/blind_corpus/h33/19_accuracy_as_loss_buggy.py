"""Config-driven loss builder that ends up optimising an argmax accuracy.

Modelled on: https://github.com/fundamentalvision/Uni-Perceiver/issues/2

The issue points out that Uni-Perceiver registers an "accuracy" entry among
its losses although argmax cannot backpropagate.  In this reproduction the
config lists only the accuracy criterion for a task, so the total "loss" is
built from argmax and a comparison.  It has no grad_fn and backward() raises.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

LOSS_REGISTRY = {}


def register(name):
    def deco(cls):
        LOSS_REGISTRY[name] = cls
        return cls
    return deco


@register("CrossEntropy")
class CrossEntropyLoss(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits, target)


@register("Accuracy")
class AccuracyLoss(nn.Module):
    def forward(self, logits, target):
        pred = logits.argmax(dim=-1)
        return 1.0 - (pred == target).float().mean()


def build_losses(cfg):
    return {name: LOSS_REGISTRY[name]() for name in cfg.losses}


class Tower(nn.Module):
    def __init__(self, d=12, c=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 24), nn.GELU(), nn.Linear(24, c))

    def forward(self, x):
        return self.enc(x)


def train(cfg):
    torch.manual_seed(0)
    model, losses = Tower(), build_losses(cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(cfg.iters):
        x, y = torch.randn(8, 12), torch.randint(0, 4, (8,))
        logits = model(x)
        loss_dict = {k: fn(logits, y) for k, fn in losses.items()}
        total = sum(loss_dict.values())
        opt.zero_grad()
        total.backward()  # bug: GG108
        opt.step()
    return model


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--losses", nargs="+", default=["Accuracy"])
    p.add_argument("--iters", type=int, default=2)
    return p.parse_args(argv)


if __name__ == "__main__":
    try:
        train(parse([]))
        print("no error raised")
    except RuntimeError as e:
        print(f"BUGGY: {e}")

"""Fixed: only model.backbone is frozen; the head stays trainable.

Modelled on: https://github.com/megvii-model/DetNAS/issues/34

The reporter asks why DetNAS's trainer sets param.requires_grad = False and
whether loss.backward() will then fail.  In this reproduction the freezing
helper is handed the full model instead of model.backbone, so every parameter
(including the head) is frozen.  The loss then has no grad_fn and backward()
raises "element 0 of tensors does not require grad".
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.stage = nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return F.relu(self.stage(F.relu(self.stem(x))))


class Detector(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.backbone = Backbone()
        self.cls_head = nn.Linear(8, num_classes)

    def forward(self, images):
        feats = self.backbone(images).mean(dim=(2, 3))
        return self.cls_head(feats)


def freeze(module):
    for p in module.parameters():
        p.requires_grad = False


def do_train(model, loader, cfg):
    if cfg.freeze_backbone:
        freeze(model.backbone)
    params = [p for p in model.parameters() if p.requires_grad] or list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=cfg.lr)
    model.train()
    for images, targets in loader:
        loss_dict = {"loss_cls": F.cross_entropy(model(images), targets)}
        losses = sum(loss for loss in loss_dict.values())
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
    return model


def make_loader(n=8, bs=4):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 3, 16, 16, generator=g)
    y = torch.randint(0, 5, (n,), generator=g)
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--freeze-backbone", action="store_true", default=True)
    return p.parse_args(argv)


if __name__ == "__main__":
    m = do_train(Detector(), make_loader(), parse([]))
    assert m.cls_head.weight.grad is not None and m.backbone.stem.weight.grad is None
    print("FIXED: ok")

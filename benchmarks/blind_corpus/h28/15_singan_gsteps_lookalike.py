"""Classifier + auxiliary outlier-weight head sharing one forward pass.

Modelled on: https://github.com/tamarott/SinGAN/issues/148 (counterpart)

Looks like the SinGAN crash: two losses share one graph, the first
backward() keeps it with retain_graph=True, and two optimizers step.  Here
both backward() calls happen before either optimizer.step(), so the retained
graph is consumed while the parameters it saved are still unmodified.
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class Backbone(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, cfg):
        self.backbone = Backbone(cfg.dim, cfg.hidden)
        self.classifier = nn.Linear(cfg.hidden, cfg.classes)
        self.weight_head = nn.Linear(cfg.hidden, 1)
        self.optimizer = torch.optim.SGD(
            list(self.backbone.parameters()) + list(self.classifier.parameters()), lr=cfg.lr)
        self.optimizer_w = torch.optim.SGD(self.weight_head.parameters(), lr=cfg.lr)

    def compute_losses(self, x, y, is_outlier):
        feats = self.backbone(x)
        logits = self.classifier(feats)
        loss = F.cross_entropy(logits, y)
        w_logit = self.weight_head(feats).squeeze(1)
        loss_w = F.binary_cross_entropy_with_logits(w_logit, is_outlier)
        return loss, loss_w

    def step(self, x, y, is_outlier):
        self.optimizer.zero_grad()
        self.optimizer_w.zero_grad()
        loss, loss_w = self.compute_losses(x, y, is_outlier)
        loss.backward(retain_graph=True)
        loss_w.backward()
        self.optimizer.step()
        self.optimizer_w.step()
        return loss.item(), loss_w.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = SimpleNamespace(dim=10, hidden=16, classes=4, lr=0.05)
    trainer = Trainer(cfg)
    for _ in range(3):
        x = torch.randn(8, cfg.dim)
        y = torch.randint(0, cfg.classes, (8,))
        trainer.step(x, y, (torch.rand(8) < 0.3).float())
    print("OK")

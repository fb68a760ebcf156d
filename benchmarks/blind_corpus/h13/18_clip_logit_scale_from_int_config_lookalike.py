"""Category GG402 look-alike - learnable scalars built from integer config values, correctly.

A CLIP-style contrastive model reads its initial temperature and its
per-modality loss weights from a config holding Python ints. The values are
converted with ``float(...)`` / explicit float dtype before requires_grad is
set, and the integer tensors (target indices from ``torch.arange``) never
require grad. No error; prints OK.
Modelled on: https://github.com/pytorch/pytorch/issues/54506 (int tensor + requires_grad docs issue)
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"img_dim": 20, "txt_dim": 14, "embed": 16, "init_temperature": 1, "loss_weights": [1, 1],
       "batch": 6, "steps": 3, "lr": 1e-3}


class DualEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.img_proj = nn.Sequential(nn.Linear(cfg["img_dim"], 32), nn.GELU(), nn.Linear(32, cfg["embed"]))
        self.txt_proj = nn.Sequential(nn.Linear(cfg["txt_dim"], 32), nn.GELU(), nn.Linear(32, cfg["embed"]))
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1.0 / float(cfg["init_temperature"]))))

    def forward(self, img, txt):
        i = F.normalize(self.img_proj(img), dim=-1)
        t = F.normalize(self.txt_proj(txt), dim=-1)
        return self.logit_scale.exp() * i @ t.t()


class ContrastiveLoss(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.weights = torch.tensor(weights, dtype=torch.float32, requires_grad=True)

    def forward(self, logits):
        targets = torch.arange(logits.size(0))
        l_i = F.cross_entropy(logits, targets)
        l_t = F.cross_entropy(logits.t(), targets)
        w = torch.softmax(self.weights, 0)
        return w[0] * l_i + w[1] * l_t


def train_step(model, criterion, optimizer, img, txt):
    optimizer.zero_grad()
    loss = criterion(model(img, txt))
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
    return loss.item()


def main():
    torch.manual_seed(0)
    model, criterion = DualEncoder(CFG), ContrastiveLoss(CFG["loss_weights"])
    optimizer = torch.optim.AdamW(list(model.parameters()) + [criterion.weights], lr=CFG["lr"])
    for step in range(CFG["steps"]):
        loss = train_step(model, criterion, optimizer,
                          torch.randn(CFG["batch"], CFG["img_dim"]), torch.randn(CFG["batch"], CFG["txt_dim"]))
        print(f"step {step} loss {loss:.4f} scale {model.logit_scale.exp().item():.3f}")
    assert criterion.weights.grad is not None and criterion.weights.dtype == torch.float32


if __name__ == "__main__":
    main()
    print("OK")

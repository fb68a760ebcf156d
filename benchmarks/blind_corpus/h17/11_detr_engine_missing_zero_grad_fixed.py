"""GG601 (fixed) - DETR-style train_one_epoch clears gradients before each backward.

engine.train_one_epoch() sums the weighted loss dict, calls losses.backward(),
optionally clips and calls optimizer.step(); in the buggy version optimizer.zero_grad() was
dropped (restored here), so every step uses the sum of all gradients seen so far (silent).
Observable: with lr=0 over two batches, the final .grad equals g(batch1) +
g(batch2) instead of g(batch2).

Modelled on: https://github.com/IDEA-Research/DN-DETR/issues/19
"""
import copy
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ToyDetector(nn.Module):
    """Backbone + query decoder producing class logits and boxes per query."""

    def __init__(self, num_queries=4, num_classes=3, d=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, d, 3, stride=2, padding=1), nn.ReLU())
        self.query_embed = nn.Embedding(num_queries, d)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.class_embed = nn.Linear(d, num_classes + 1)
        self.bbox_embed = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 4))

    def forward(self, images):
        feats = self.backbone(images).flatten(2).transpose(1, 2)
        q = self.query_embed.weight.unsqueeze(0).expand(images.size(0), -1, -1)
        hs, _ = self.attn(q, feats, feats)
        return {"pred_logits": self.class_embed(hs), "pred_boxes": self.bbox_embed(hs).sigmoid()}


class SetCriterion(nn.Module):
    """Simplified: queries are matched to targets by index (no Hungarian matching)."""

    def __init__(self, weight_dict):
        super().__init__()
        self.weight_dict = weight_dict

    def forward(self, outputs, targets):
        labels, boxes = targets
        logits = outputs["pred_logits"]
        loss_ce = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
        loss_bbox = F.l1_loss(outputs["pred_boxes"], boxes)
        return {"loss_ce": loss_ce, "loss_bbox": loss_bbox}


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, max_norm=0.0):
    model.train()
    criterion.train()
    header = f"Epoch: [{epoch}]"
    for it, (samples, labels, boxes) in enumerate(data_loader):
        samples = samples.to(device)
        targets = (labels.to(device), boxes.to(device))
        outputs = model(samples)
        loss_dict = criterion(outputs, targets)
        weight_dict = criterion.weight_dict
        losses = sum(loss_dict[k] * weight_dict[k] for k in loss_dict if k in weight_dict)
        loss_value = losses.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        optimizer.zero_grad()  # fixed: GG601
        losses.backward()
        if max_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        print(f"{header} [{it}] loss: {loss_value:.4f} "
              + " ".join(f"{k}: {v.item():.4f}" for k, v in loss_dict.items()))
    return {"loss": loss_value}


def batch_grads(model, criterion, samples, labels, boxes):
    m = copy.deepcopy(model)
    loss_dict = criterion(m(samples), (labels, boxes))
    sum(loss_dict[k] * criterion.weight_dict[k] for k in loss_dict).backward()
    return [p.grad.clone() for p in m.parameters()]


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    images = torch.randn(8, 3, 16, 16)
    labels = torch.randint(0, 4, (8, 4))
    boxes = torch.rand(8, 4, 4)
    loader = DataLoader(TensorDataset(images, labels, boxes), batch_size=4, shuffle=False)
    model = ToyDetector().to(device)
    criterion = SetCriterion({"loss_ce": 1.0, "loss_bbox": 5.0})
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    for epoch in range(1):
        train_one_epoch(model, criterion, loader, optimizer, device, epoch, max_norm=0.1)

    # sanity check of the engine: lr=0 keeps the weights fixed, so after two batches
    # the gradients should be exactly those of the second batch
    probe = copy.deepcopy(model)
    probe.zero_grad(set_to_none=True)
    g1 = batch_grads(probe, criterion, images[:4], labels[:4], boxes[:4])
    g2 = batch_grads(probe, criterion, images[4:], labels[4:], boxes[4:])
    probe_opt = torch.optim.SGD(probe.parameters(), lr=0.0)
    train_one_epoch(probe, criterion, loader, probe_opt, device, epoch=99, max_norm=0.0)
    probe.eval()
    got = [p.grad for p in probe.parameters()]
    return all(torch.allclose(a, b + c, atol=1e-5) for a, b, c in zip(got, g1, g2)), \
        all(torch.allclose(a, c, atol=1e-5) for a, c in zip(got, g2))


if __name__ == "__main__":
    accumulated, last_only = main()
    assert last_only and not accumulated
    print("FIXED: ok")

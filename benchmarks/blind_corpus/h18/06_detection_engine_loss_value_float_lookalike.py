"""GG102 look-alike - engine converts the loss to a Python float for checks and logging.

A DETR-style train_one_epoch() reduces a dict of losses, takes loss_value =
losses.item() for the finiteness check and the meter, and stores float() copies
in the log dict.  backward() is still called on the tensor `losses`, never on the
converted float, so training works.  Prints OK.

Modelled on: none found
"""
import math
import sys
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = dict(num_queries=6, num_classes=5, hidden=32, lr=1e-3, clip_max_norm=0.1, epochs=2, batch_size=4)


class SmoothedValue:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)


class TinyDetector(nn.Module):
    def __init__(self, hidden, num_queries, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, hidden, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.query_embed = nn.Embedding(num_queries, hidden)
        self.class_embed = nn.Linear(hidden, num_classes + 1)
        self.bbox_embed = nn.Linear(hidden, 4)

    def forward(self, images):
        feat = self.backbone(images).flatten(1)
        h = feat.unsqueeze(1) + self.query_embed.weight.unsqueeze(0)
        return {"pred_logits": self.class_embed(h), "pred_boxes": self.bbox_embed(h).sigmoid()}


class SetCriterion(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.weight_dict = {"loss_ce": 1.0, "loss_bbox": 5.0}

    def forward(self, outputs, targets):
        labels, boxes = targets
        logits = outputs["pred_logits"]
        loss_ce = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
        loss_bbox = F.l1_loss(outputs["pred_boxes"], boxes)
        return {"loss_ce": loss_ce, "loss_bbox": loss_bbox}


def train_one_epoch(model, criterion, data_loader, optimizer, epoch, max_norm):
    model.train()
    criterion.train()
    meters = defaultdict(SmoothedValue)
    for samples, labels, boxes in data_loader:
        outputs = model(samples)
        loss_dict = criterion(outputs, (labels, boxes))
        weight_dict = criterion.weight_dict
        losses = sum(loss_dict[k] * weight_dict[k] for k in loss_dict.keys() if k in weight_dict)

        loss_dict_unscaled = {f"{k}_unscaled": float(v) for k, v in loss_dict.items()}
        loss_value = losses.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)

        optimizer.zero_grad()
        losses.backward()
        if max_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()

        meters["loss"].update(loss_value)
        for k, v in loss_dict_unscaled.items():
            meters[k].update(v)
    print(f"Epoch [{epoch}] " + "  ".join(f"{k}: {m.global_avg:.4f}" for k, m in meters.items()))
    return {k: m.global_avg for k, m in meters.items()}


def main():
    torch.manual_seed(0)
    n = 8
    images = torch.randn(n, 3, 16, 16)
    labels = torch.randint(0, ARGS["num_classes"] + 1, (n, ARGS["num_queries"]))
    boxes = torch.rand(n, ARGS["num_queries"], 4)
    loader = DataLoader(TensorDataset(images, labels, boxes), batch_size=ARGS["batch_size"])
    model = TinyDetector(ARGS["hidden"], ARGS["num_queries"], ARGS["num_classes"])
    criterion = SetCriterion(ARGS["num_classes"])
    param_dicts = [{"params": [p for p in model.parameters() if p.requires_grad]}]
    optimizer = torch.optim.AdamW(param_dicts, lr=ARGS["lr"], weight_decay=1e-4)
    w0 = model.class_embed.weight.detach().clone()
    for epoch in range(ARGS["epochs"]):
        train_one_epoch(model, criterion, loader, optimizer, epoch, ARGS["clip_max_norm"])
    assert not torch.equal(w0, model.class_embed.weight)


if __name__ == "__main__":
    main()
    print("OK")

"""GG104 - backward() through a detector whose every parameter ended up frozen.

Category: GG104 (all parameters have requires_grad=False).
The mistake: to train only a newly added attention block in the neck, the
user freezes backbone and heads and, in the neck, everything whose name
does not contain 'ATS'.  The block is registered as `self.ats`, so the
case-sensitive test matches nothing and the whole model is frozen.  The
first backward() raises
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
This file: BUGGY version.
Modelled on: https://github.com/open-mmlab/mmdetection/issues/4040
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = dict(num_classes=3, channels=16, img_size=32, batch=4, iters=3, lr=0.01,
           new_module_key="ATS")


class Backbone(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, 2, 1), nn.ReLU())
        self.stage1 = nn.Sequential(nn.Conv2d(c, c, 3, 2, 1), nn.ReLU())
        self.stage2 = nn.Sequential(nn.Conv2d(c, c, 3, 2, 1), nn.ReLU())

    def forward(self, x):
        c1 = self.stage1(self.stem(x))
        return [c1, self.stage2(c1)]


class AdaptiveTokenSelect(nn.Module):
    """The user's new block: channel attention on every FPN level."""

    def __init__(self, c):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(c, c // 4), nn.ReLU(), nn.Linear(c // 4, c))

    def forward(self, feat):
        w = torch.sigmoid(self.fc(feat.mean((2, 3))))
        return feat * w[:, :, None, None]


class FPNWithATS(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lateral = nn.ModuleList([nn.Conv2d(c, c, 1) for _ in range(2)])
        self.ats = AdaptiveTokenSelect(c)

    def forward(self, feats):
        p2 = self.lateral[1](feats[1])
        p1 = self.lateral[0](feats[0]) + F.interpolate(p2, scale_factor=2)
        return [self.ats(p1), self.ats(p2)]


class Detector(nn.Module):
    def __init__(self, c, num_classes):
        super().__init__()
        self.backbone = Backbone(c)
        self.neck = FPNWithATS(c)
        self.rpn_head = nn.Conv2d(c, 1, 3, padding=1)
        self.roi_head = nn.Linear(c, num_classes + 4)
        self.freeze_for_ats()

    def freeze_for_ats(self):
        for v in self.backbone.parameters():
            v.requires_grad = False
        for v in self.rpn_head.parameters():
            v.requires_grad = False
        for v in self.roi_head.parameters():
            v.requires_grad = False
        for name, para in self.neck.named_parameters():
            if cfg["new_module_key"] not in name:
                para.requires_grad = False

    def forward_train(self, img, gt_labels, gt_boxes):
        feats = self.neck(self.backbone(img))
        objectness = torch.cat([self.rpn_head(f).flatten(1) for f in feats], 1)
        pooled = feats[-1].mean((2, 3))
        out = self.roi_head(pooled)
        cls_score, bbox_pred = out[:, :-4], out[:, -4:]
        return {"loss_rpn": F.binary_cross_entropy_with_logits(
                    objectness, torch.ones_like(objectness) * 0.5),
                "loss_cls": F.cross_entropy(cls_score, gt_labels),
                "loss_bbox": F.smooth_l1_loss(bbox_pred, gt_boxes)}


def parse_losses(losses):
    loss = sum(v for v in losses.values())
    log_vars = {k: round(v.item(), 4) for k, v in losses.items()}
    return loss, log_vars


def train_detector(model, optimizer, iters):
    model.train()
    for it in range(iters):
        img = torch.randn(cfg["batch"], 3, cfg["img_size"], cfg["img_size"])
        labels = torch.randint(0, cfg["num_classes"], (cfg["batch"],))
        boxes = torch.rand(cfg["batch"], 4)
        loss, log_vars = parse_losses(model.forward_train(img, labels, boxes))
        optimizer.zero_grad()
        loss.backward()  # bug: GG104
        optimizer.step()
        print(f"iter {it}: {log_vars}")


def main():
    torch.manual_seed(0)
    model = Detector(cfg["channels"], cfg["num_classes"])
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"trainable parameters: {n_train}")
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    train_detector(model, optimizer, cfg["iters"])


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")

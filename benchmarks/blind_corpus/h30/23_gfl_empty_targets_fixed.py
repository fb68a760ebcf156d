"""Fixed: anchor-free detector head (GFL style) whose loss for batches without positives is a bare constant.

Modelled on: https://github.com/RangiLyu/nanodet/issues/7

With a short warm-up, batches whose images contain no positive samples reach
the head's ``loss_single`` branch that returns freshly created zero tensors.
``backward()`` then failed with "element 0 of tensors does not require grad",
and the suggested fix was to create those tensors with ``requires_grad=True``.
Here the whole loss of such a batch is built that way: ``backward()`` now runs,
but the loss has no history, no parameter receives a gradient, and the
warm-up steps silently train nothing (not even the classifier, which should
learn that every location is background).

Fix: always compute the classification loss against all-background targets,
and express the empty box losses as ``bbox_pred.sum() * 0`` so they stay in the
graph.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class GFLHead(nn.Module):
    def __init__(self, in_ch=8, num_classes=3, reg_max=4):
        super().__init__()
        self.num_classes = num_classes
        self.reg_max = reg_max
        self.cls_conv = nn.Conv2d(in_ch, num_classes, 3, padding=1)
        self.reg_conv = nn.Conv2d(in_ch, 4 * (reg_max + 1), 3, padding=1)

    def forward(self, feat):
        return self.cls_conv(feat), self.reg_conv(feat)

    def quality_focal_loss(self, cls_score, score_target, beta=2.0):
        pred = cls_score.sigmoid()
        weight = (pred - score_target).abs().pow(beta)
        return (F.binary_cross_entropy_with_logits(cls_score, score_target, reduction="none") * weight).sum()

    def loss_single(self, cls_score, bbox_pred, labels, bbox_targets):
        # cls_score: (N, C) per location, labels: (N,), num_classes == background
        pos = (labels >= 0) & (labels < self.num_classes)
        num_pos = int(pos.sum())
        score_target = torch.zeros_like(cls_score)
        score_target[pos, labels[pos]] = 1.0
        loss_qfl = self.quality_focal_loss(cls_score, score_target) / max(num_pos, 1)
        if num_pos == 0:
            # keep the graph: the box branches get an exact zero gradient
            zero = bbox_pred.sum() * 0.0
            return loss_qfl, zero, zero
        dist = bbox_pred[pos].view(-1, 4, self.reg_max + 1).softmax(-1)
        expected = (dist * torch.arange(self.reg_max + 1).float()).sum(-1)
        loss_bbox = F.l1_loss(expected, bbox_targets[pos])
        loss_dfl = -(dist.clamp_min(1e-6).log().mean())
        return loss_qfl, loss_bbox, loss_dfl

    def loss(self, preds, gt):
        cls_score, bbox_pred = preds
        cls_flat = cls_score.permute(0, 2, 3, 1).reshape(-1, self.num_classes)
        reg_flat = bbox_pred.permute(0, 2, 3, 1).reshape(-1, 4 * (self.reg_max + 1))
        loss_qfl, loss_bbox, loss_dfl = self.loss_single(
            cls_flat, reg_flat, gt["labels"].reshape(-1), gt["bbox_targets"].reshape(-1, 4))
        loss = loss_qfl + 2.0 * loss_bbox + 0.25 * loss_dfl
        return loss, {"qfl": loss_qfl.item(), "bbox": loss_bbox.item(), "dfl": loss_dfl.item()}


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    def run_step(self, batch):
        preds = self.model(batch["img_feat"])
        loss, stats = self.model.loss(preds, batch)
        self.optimizer.zero_grad()
        loss.backward()
        return loss, stats

    def warm_up(self, batches):
        for batch in batches:
            self.run_step(batch)
            self.optimizer.step()


def empty_batch(bs=2, ch=8, hw=4, num_classes=3):
    return {"img_feat": torch.randn(bs, ch, hw, hw),
            "labels": torch.full((bs, hw, hw), num_classes),      # all background
            "bbox_targets": torch.zeros(bs, hw, hw, 4)}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--warmup_steps", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    head = GFLHead()
    trainer = Trainer(head, args.lr)
    before = head.cls_conv.weight.detach().clone()
    trainer.warm_up([empty_batch() for _ in range(args.warmup_steps)])
    return not torch.equal(before, head.cls_conv.weight)


if __name__ == "__main__":
    assert main([]), "classifier should learn background during warm-up"
    print("FIXED: ok")

"""Look-alike: GFL head with learnable loss weights created via torch.tensor(..., requires_grad=True).

Modelled on: https://github.com/RangiLyu/nanodet/issues/7 (counterpart)

Same detector head as the report.  ``torch.tensor(0.0, requires_grad=True)``
appears, but for learnable log-variance task weights (uncertainty weighting)
that are handed to the optimizer and multiply real losses; the loss that is
backpropagated has history through the head.  Empty batches keep their
classification loss.  Correct code.
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
        self.log_vars = [torch.tensor(0.0, requires_grad=True)]
        self.optimizer = torch.optim.SGD(list(model.parameters()) + self.log_vars,
                                         lr=lr, momentum=0.9)

    def run_step(self, batch):
        preds = self.model(batch["img_feat"])
        loss, stats = self.model.loss(preds, batch)
        s_cls = self.log_vars[0]
        loss = torch.exp(-s_cls) * loss + s_cls
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
    return (not torch.equal(before, head.cls_conv.weight)) and trainer.log_vars[0].item() != 0.0


if __name__ == "__main__":
    assert main([])
    print("OK")

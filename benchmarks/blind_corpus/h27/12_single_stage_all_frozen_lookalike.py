"""Look-alike: single-stage detector with frozen stages and a frozen EMA copy.

Modelled on: https://github.com/open-mmlab/mmdetection/issues/3667 (counterpart)

Here `_freeze_stages()` freezes the backbone and a separate EMA teacher has
all of its parameters frozen, but the detector's bbox head stays trainable,
so the loss that reaches `backward()` has trainable parameters.
(The paragraph below describes the mistake this file avoids.)

The user wanted to freeze the backbone of an mmdetection single-stage
detector and added two loops in `SingleStageDetector.__init__`, one over
`self.backbone.parameters()` and one over `self.bbox_head.parameters()`,
setting `requires_grad = False`.  The detector has no other trainable
module, so every parameter is frozen and the optimizer hook's
`runner.outputs['loss'].backward()` fails with "element 0 of tensors does not
require grad and does not have a grad_fn".
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyBackbone(nn.Module):
    def __init__(self, in_ch=3, ch=8):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, ch, 3, padding=1)
        self.conv2 = nn.Conv2d(ch, ch, 3, stride=2, padding=1)

    def forward(self, x):
        return F.relu(self.conv2(F.relu(self.conv1(x))))


class AnchorFreeHead(nn.Module):
    def __init__(self, ch=8, num_classes=3):
        super().__init__()
        self.cls_conv = nn.Conv2d(ch, num_classes, 1)
        self.reg_conv = nn.Conv2d(ch, 4, 1)

    def forward(self, feat):
        return self.cls_conv(feat), self.reg_conv(feat)

    def loss(self, cls_score, bbox_pred, gt_cls, gt_box):
        loss_cls = F.cross_entropy(cls_score, gt_cls)
        loss_bbox = F.smooth_l1_loss(bbox_pred, gt_box)
        return dict(loss_cls=loss_cls, loss_bbox=loss_bbox)


class SingleStageDetector(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.backbone = TinyBackbone()
        self.bbox_head = AnchorFreeHead(num_classes=num_classes)
        self._freeze_stages()

    def _freeze_stages(self):
        for v in self.backbone.parameters():
            v.requires_grad = False

    def forward_train(self, img, gt_cls, gt_box):
        feat = self.backbone(img)
        cls_score, bbox_pred = self.bbox_head(feat)
        return self.bbox_head.loss(cls_score, bbox_pred, gt_cls, gt_box)


def parse_losses(losses):
    return sum(v for v in losses.values())


class OptimizerHook:
    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()
        runner.optimizer.step()


class Runner:
    def __init__(self, model, optimizer, hooks):
        self.model, self.optimizer, self.hooks = model, optimizer, hooks
        self.outputs = {}

    def train(self, data_loader):
        self.model.train()
        for img, gt_cls, gt_box in data_loader:
            losses = self.model.forward_train(img, gt_cls, gt_box)
            self.outputs = {"loss": parse_losses(losses)}
            for h in self.hooks:
                h.after_train_iter(self)


def fake_loader(n_batches=2, bs=2, size=16, num_classes=3):
    for _ in range(n_batches):
        img = torch.randn(bs, 3, size, size)
        gt_cls = torch.randint(0, num_classes, (bs, size // 2, size // 2))
        gt_box = torch.randn(bs, 4, size // 2, size // 2)
        yield img, gt_cls, gt_box


def build_optimizer(model, lr):
    params = [p for p in model.parameters() if p.requires_grad] or list(model.parameters())
    return torch.optim.SGD(params, lr=lr, momentum=0.9)


def build_ema(model):
    ema = SingleStageDetector()
    ema.load_state_dict(model.state_dict())
    for v in ema.parameters():
        v.requires_grad = False
    return ema


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.01)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    model = SingleStageDetector()
    ema = build_ema(model)
    runner = Runner(model, build_optimizer(model, args.lr), [OptimizerHook()])
    runner.train(fake_loader())
    with torch.no_grad():
        img, gt_cls, gt_box = next(fake_loader())
        ema_losses = ema.forward_train(img, gt_cls, gt_box)
    assert all(p.grad is not None for p in model.bbox_head.parameters())
    assert parse_losses(ema_losses).item() > 0
    print("OK")


if __name__ == "__main__":
    main([])

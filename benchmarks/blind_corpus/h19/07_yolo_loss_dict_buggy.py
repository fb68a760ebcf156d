"""GG203 - per-epoch loss totals accumulate loss tensors and keep every graph alive.

A small YOLO-style trainer sums each loss component into
``defaultdict(lambda: torch.tensor(0.0))`` for logging at the end of the epoch.
``total_loss[name] += loss_val * batch_size`` adds a tensor that still has a
grad_fn, so each total is itself a growing autograd graph that references every
batch's graph of the epoch: memory grows with every iteration (on a GPU this ends
in out-of-memory). Silent: nothing raises; the totals still carry a grad_fn.

Modelled on: https://github.com/MultimediaTechLab/YOLO/pull/83
"""
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = dict(num_classes=3, img_size=32, batch_size=4, epochs=2, lr=1e-3,
           box_weight=7.5, obj_weight=1.0, cls_weight=0.5, device="cpu")


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.SiLU())
        self.stage = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU())

    def forward(self, x):
        return self.stage(self.stem(x))


class DetectHead(nn.Module):
    """Predicts (box[4], objectness[1], classes[C]) on every grid cell."""

    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.pred = nn.Conv2d(16, 5 + num_classes, 1)

    def forward(self, feats):
        out = self.pred(feats)
        return out.flatten(2).transpose(1, 2)  # B, cells, 5 + C


class YOLO(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = TinyBackbone()
        self.head = DetectHead(num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


class YOLOLoss:
    def __init__(self, cfg):
        self.cfg = cfg

    def __call__(self, preds, targets):
        box_p, obj_p, cls_p = preds[..., :4], preds[..., 4], preds[..., 5:]
        box_t, obj_t, cls_t = targets[..., :4], targets[..., 4], targets[..., 5].long()
        mask = obj_t > 0.5
        loss_box = F.smooth_l1_loss(box_p[mask], box_t[mask]) if mask.any() else box_p.sum() * 0
        loss_obj = F.binary_cross_entropy_with_logits(obj_p, obj_t)
        loss_cls = F.cross_entropy(cls_p[mask], cls_t[mask]) if mask.any() else cls_p.sum() * 0
        parts = {"BoxLoss": loss_box, "ObjLoss": loss_obj, "ClsLoss": loss_cls}
        total = (self.cfg["box_weight"] * loss_box + self.cfg["obj_weight"] * loss_obj
                 + self.cfg["cls_weight"] * loss_cls)
        return total, parts


def make_loader(cfg):
    n, cells = 12, (cfg["img_size"] // 4) ** 2
    images = torch.randn(n, 3, cfg["img_size"], cfg["img_size"])
    targets = torch.zeros(n, cells, 6)
    targets[..., :4] = torch.rand(n, cells, 4)
    targets[..., 4] = (torch.rand(n, cells) > 0.8).float()
    targets[..., 5] = torch.randint(0, cfg["num_classes"], (n, cells)).float()
    return DataLoader(TensorDataset(images, targets), batch_size=cfg["batch_size"], shuffle=True)


class ModelTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device(cfg["device"])
        self.model = YOLO(cfg["num_classes"]).to(self.device)
        self.loss_fn = YOLOLoss(cfg)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg["lr"])
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.9)

    def train_one_batch(self, images, targets):
        images, targets = images.to(self.device), targets.to(self.device)
        self.optimizer.zero_grad()
        preds = self.model(images)
        loss, loss_item = self.loss_fn(preds, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 10.0)
        self.optimizer.step()
        return loss_item

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(lambda: torch.tensor(0.0, device=self.device))
        total_samples = 0
        for images, targets in dataloader:
            batch_size = images.shape[0]
            loss_each = self.train_one_batch(images, targets)
            for loss_name, loss_val in loss_each.items():
                total_loss[loss_name] += loss_val * batch_size  # bug: GG203
            total_samples += batch_size
        self.scheduler.step()
        return {k: v / total_samples for k, v in total_loss.items()}

    def fit(self, dataloader):
        history = []
        for epoch in range(self.cfg["epochs"]):
            epoch_loss = self.train_one_epoch(dataloader)
            msg = " | ".join(f"{k}: {float(v):.4f}" for k, v in epoch_loss.items())
            print(f"Epoch {epoch + 1}/{self.cfg['epochs']} {msg}")
            history.append(epoch_loss)
        return history


def main():
    torch.manual_seed(0)
    trainer = ModelTrainer(CFG)
    return trainer.fit(make_loader(CFG))


if __name__ == "__main__":
    history = main()
    kept = [k for k, v in history[-1].items() if torch.is_tensor(v) and v.grad_fn is not None]
    if kept:
        print(f"BUGGY: epoch loss totals {kept} still carry a grad_fn (every batch graph kept alive)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

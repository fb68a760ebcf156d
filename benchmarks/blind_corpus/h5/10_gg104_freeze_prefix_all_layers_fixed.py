"""Category GG104 -- backward() through a model whose every parameter is frozen.
Status: fixed -- `freeze` is set to 3 so only the stem/backbone blocks are
frozen and the remaining blocks and the head train.
A YOLO-like transfer-learning script freezes the first `freeze` blocks by building
name prefixes `model.0.`, `model.1.` ... and switching requires_grad off for every
parameter whose name starts with one.  The detector here only has 6 blocks (the
head is block 5) but the default `freeze=10` copied from a bigger config covers all
of them, so nothing is trainable and the scaled loss's backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/ultralytics/ultralytics/issues/6184
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

HYP = {"freeze": 3, "lr0": 0.01, "momentum": 0.937, "weight_decay": 5e-4, "epochs": 1,
       "batch": 4, "imgsz": 32, "nc": 3}


def conv(c1, c2, s=1):
    return nn.Sequential(nn.Conv2d(c1, c2, 3, s, 1, bias=False), nn.BatchNorm2d(c2), nn.SiLU())


class DetectHead(nn.Module):
    def __init__(self, c, nc):
        super().__init__()
        self.cls = nn.Conv2d(c, nc, 1)
        self.box = nn.Conv2d(c, 4, 1)

    def forward(self, x):
        return self.cls(x), self.box(x)


class TinyDetector(nn.Module):
    def __init__(self, nc):
        super().__init__()
        self.model = nn.Sequential(conv(3, 8, 2), conv(8, 16, 2), conv(16, 16), conv(16, 32, 2),
                                   conv(32, 32), DetectHead(32, nc))

    def forward(self, x):
        return self.model(x)


def compute_loss(preds, targets):
    cls_logits, boxes = preds
    cls_t, box_t = targets
    cls_loss = nn.functional.binary_cross_entropy_with_logits(cls_logits.mean((2, 3)), cls_t)
    box_loss = nn.functional.l1_loss(boxes.mean((2, 3)), box_t)
    return cls_loss + 5.0 * box_loss, torch.stack([cls_loss, box_loss]).detach()


class DetectionTrainer:
    def __init__(self, hyp):
        self.hyp = hyp
        self.model = TinyDetector(hyp["nc"])
        freeze = [f"model.{x}." for x in range(hyp["freeze"])]
        for k, v in self.model.named_parameters():
            v.requires_grad = True
            if any(x in k for x in freeze):
                print(f"Freezing layer '{k}'")
                v.requires_grad = False
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=hyp["lr0"],
                                         momentum=hyp["momentum"], weight_decay=hyp["weight_decay"])
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)

    def _do_train(self, loader):
        for epoch in range(self.hyp["epochs"]):
            self.model.train()
            for i, (imgs, cls_t, box_t) in enumerate(loader):
                preds = self.model(imgs)
                self.loss, self.loss_items = compute_loss(preds, (cls_t, box_t))
                self.scaler.scale(self.loss).backward()  # fixed: GG104
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
                print(f"{epoch}/{i} cls={self.loss_items[0]:.3f} box={self.loss_items[1]:.3f}")


def main():
    torch.manual_seed(0)
    n, h = 8, HYP
    imgs = torch.rand(n, 3, h["imgsz"], h["imgsz"])
    cls_t = torch.randint(0, 2, (n, h["nc"])).float()
    box_t = torch.rand(n, 4)
    loader = DataLoader(TensorDataset(imgs, cls_t, box_t), batch_size=h["batch"], shuffle=True)
    DetectionTrainer(h)._do_train(loader)


if __name__ == "__main__":
    main()
    print("FIXED: ok")

"""GG108 look-alike - argmax and comparisons used only as masks/metrics.

A segmentation trainer computes an "ignore" mask with comparisons, hard
predictions with argmax for IoU, and a confidence mask from (prob > t).float().
These non-differentiable tensors only *weight* or *measure*; the loss itself is
the per-pixel cross-entropy on the logits, so gradients flow. Correct code.

Modelled on: none found (OHEM-style segmentation loss).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

IGNORE_INDEX = 255
CFG = {"classes": 3, "lr": 1e-3, "epochs": 2, "conf_thresh": 0.7}


class SegHead(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                 nn.Conv2d(16, classes, 1))

    def forward(self, x):
        return self.net(x)


def seg_loss(logits, target, conf_thresh):
    valid = (target != IGNORE_INDEX)
    safe_target = torch.where(valid, target, torch.zeros_like(target))
    pixel_ce = F.cross_entropy(logits, safe_target, reduction="none")
    with torch.no_grad():
        prob = logits.softmax(1).gather(1, safe_target.unsqueeze(1)).squeeze(1)
        hard = (prob < conf_thresh).float()
    weight = valid.float() * (0.5 + hard)
    return (pixel_ce * weight).sum() / weight.sum().clamp(min=1.0)


def mean_iou(logits, target, classes):
    pred = logits.argmax(dim=1)
    valid = target != IGNORE_INDEX
    ious = []
    for c in range(classes):
        inter = ((pred == c) & (target == c) & valid).sum().item()
        union = (((pred == c) | (target == c)) & valid).sum().item()
        if union:
            ious.append(inter / union)
    return sum(ious) / max(len(ious), 1)


def main():
    torch.manual_seed(7)
    imgs = torch.randn(8, 3, 16, 16)
    tgts = torch.randint(0, CFG["classes"], (8, 16, 16))
    tgts[:, :2, :] = IGNORE_INDEX
    loader = DataLoader(TensorDataset(imgs, tgts), batch_size=4, shuffle=True)
    model = SegHead(CFG["classes"])
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    w0 = model.net[0].weight.detach().clone()
    for epoch in range(CFG["epochs"]):
        for x, y in loader:
            logits = model(x)
            loss = seg_loss(logits, y, CFG["conf_thresh"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} mIoU {mean_iou(logits.detach(), y, CFG['classes']):.3f}")
    assert not torch.equal(w0, model.net[0].weight)


if __name__ == "__main__":
    main()
    print("OK")

"""GG204 (buggy): validation loop run with autograd on, predictions kept.

Mistake: validate() switches the segmentation net to eval() but never disables
gradient tracking. Each batch's softmax probabilities are kept in a list (to be saved
with torch.save for later inspection), and because they were computed with grad on,
every stored tensor keeps its batch's whole forward graph, activations included,
alive for the whole validation pass: memory grows per batch until "out of memory".
Silent effect: no error; every stored prediction has requires_grad=True and a grad_fn.
Modelled on: https://github.com/hszhao/semseg/issues/60
"""
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"classes": 3, "batch_size": 4, "ignore_label": 255, "base_lr": 0.01}


class AverageMeter:
    def __init__(self):
        self.val = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val, self.sum, self.count = val, self.sum + val * n, self.count + n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class TinyPSPNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.layer0 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.ppm = nn.ModuleList(nn.Sequential(nn.AdaptiveAvgPool2d(s), nn.Conv2d(16, 4, 1)) for s in (1, 2))
        self.cls = nn.Conv2d(16 + 8, classes, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        f = self.layer0(x)
        pooled = [F.interpolate(p(f), f.shape[-2:], mode="bilinear", align_corners=False) for p in self.ppm]
        out = self.cls(torch.cat([f] + pooled, 1))
        return F.interpolate(out, (h, w), mode="bilinear", align_corners=False)


def intersection_and_union(pred, target, k):
    inter = pred[pred == target]
    area_inter = torch.histc(inter.float(), bins=k, min=0, max=k - 1)
    area_pred = torch.histc(pred.float(), bins=k, min=0, max=k - 1)
    area_target = torch.histc(target.float(), bins=k, min=0, max=k - 1)
    return area_inter, area_pred + area_target - area_inter


def validate(val_loader, model, criterion, args):
    loss_meter, batch_time = AverageMeter(), AverageMeter()
    inter_sum, union_sum = torch.zeros(args["classes"]), torch.zeros(args["classes"])
    saved_probs = []
    model.eval()
    end = time.time()
    for i, (input, target) in enumerate(val_loader):  # bug: GG204
        output = model(input)
        loss = criterion(output, target)
        probs = F.softmax(output, dim=1)
        saved_probs.append(probs)
        pred = output.max(1)[1]
        inter, union = intersection_and_union(pred, target, args["classes"])
        inter_sum += inter
        union_sum += union
        loss_meter.update(loss.item(), input.size(0))
        batch_time.update(time.time() - end)
        end = time.time()
    miou = (inter_sum / (union_sum + 1e-10)).mean().item()
    print(f"Val result: mIoU {miou:.4f}, loss {loss_meter.avg:.4f}")
    return saved_probs


def main():
    torch.manual_seed(0)
    images = torch.randn(12, 3, 16, 16)
    masks = torch.randint(0, ARGS["classes"], (12, 16, 16))
    val_loader = DataLoader(TensorDataset(images, masks), batch_size=ARGS["batch_size"])
    model = TinyPSPNet(ARGS["classes"])
    criterion = nn.CrossEntropyLoss(ignore_index=ARGS["ignore_label"])
    probs = validate(val_loader, model, criterion, ARGS)
    with tempfile.TemporaryDirectory() as tmp:
        torch.save([p.detach() for p in probs], os.path.join(tmp, "val_probs.pt"))
    return probs


if __name__ == "__main__":
    probs = main()
    if all(p.requires_grad and p.grad_fn is not None for p in probs):
        print(f"BUGGY: all {len(probs)} stored validation outputs still require grad and hold their forward graph")
    else:
        raise SystemExit("NO BUG")

"""GG203 look-alike - `total += loss` inside one step, on purpose, before backward().

A deeply-supervised segmentation net returns predictions from several decoder
depths.  `train_step` sums the per-head losses into `total` with `+=`, which
looks like "total += loss keeps every iteration's graph alive".  But `total` is
re-created for each batch and back-propagated immediately; the bookkeeping that
outlives the step (`meter`) only receives `.item()` floats.  No graph survives
the iteration.

Modelled on: https://github.com/jokester-zzz/SSA-SC/issues/2 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = dict(n_classes=3, size=16, batch=4, epochs=2, lr=1e-3, head_weights=(1.0, 0.5, 0.25))


class DeepSupNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.bottom = nn.Sequential(nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.heads = nn.ModuleList([nn.Conv2d(c, n_classes, 1) for c in (8, 16, 16)])

    def forward(self, x):
        f0 = self.stem(x)
        f1 = self.down(f0)
        f2 = self.bottom(f1)
        size = x.shape[-2:]
        return [F.interpolate(h(f), size=size, mode="bilinear", align_corners=False)
                for h, f in zip(self.heads, (f0, f1, f2))]


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_step(model, images, masks, optimizer, weights):
    outputs = model(images)
    total = 0.0
    for w, out in zip(weights, outputs):
        total += w * F.cross_entropy(out, masks)
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
    return total.item()


def main():
    torch.manual_seed(0)
    images = torch.randn(12, 3, CFG["size"], CFG["size"])
    masks = torch.randint(0, CFG["n_classes"], (12, CFG["size"], CFG["size"]))
    loader = DataLoader(TensorDataset(images, masks), batch_size=CFG["batch"], shuffle=True)
    model = DeepSupNet(CFG["n_classes"])
    optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9)
    for epoch in range(CFG["epochs"]):
        meter = AverageMeter()
        for images_b, masks_b in loader:
            meter.update(train_step(model, images_b, masks_b, optimizer, CFG["head_weights"]),
                         images_b.size(0))
        assert isinstance(meter.sum, float)
        print(f"epoch {epoch}: loss={meter.avg:.4f}")


if __name__ == "__main__":
    main()
    print("OK")

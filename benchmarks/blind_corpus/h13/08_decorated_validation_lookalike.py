"""Category GG204 look-alike - validation loop without a ``with torch.no_grad()`` block.

The validation function has no visible no_grad context around its loop, which
is what a careless check would look for. It is decorated with
``@torch.no_grad()`` instead, so the outputs it accumulates carry no graph.
No error; prints OK.
Modelled on: https://github.com/mapbox/robosat/pull/109
"""
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

Config = collections.namedtuple("Config", "classes size batch lr epochs")
CFG = Config(classes=2, size=16, batch=4, lr=1e-3, epochs=2)


class TinySegNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                 nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        return self.cls(self.enc(x))


def train(loader, net, criterion, optimizer):
    net.train()
    total, n = 0.0, 0
    for images, masks in loader:
        optimizer.zero_grad()
        loss = criterion(net(images), masks)
        loss.backward()
        optimizer.step()
        total += loss.item() * images.size(0)
        n += images.size(0)
    return {"loss": total / n}


@torch.no_grad()
def validate(loader, net, criterion):
    net.eval()
    losses, probs = [], []
    for images, masks in loader:
        outputs = net(images)
        losses.append(criterion(outputs, masks))
        probs.append(F.softmax(outputs, dim=1))
    iou_fg = []
    for p, (_, m) in zip(probs, loader):
        pred = p.argmax(1)
        inter = ((pred == 1) & (m == 1)).sum().item()
        union = ((pred == 1) | (m == 1)).sum().item()
        iou_fg.append(inter / union if union else 1.0)
    return {"loss": torch.stack(losses).mean(), "iou": sum(iou_fg) / len(iou_fg), "probs": probs}


def main():
    torch.manual_seed(0)
    imgs = torch.randn(12, 3, CFG.size, CFG.size)
    masks = (imgs.mean(1) > 0).long()
    train_loader = DataLoader(TensorDataset(imgs[:8], masks[:8]), batch_size=CFG.batch, shuffle=True)
    val_loader = DataLoader(TensorDataset(imgs[8:], masks[8:]), batch_size=CFG.batch)
    net = TinySegNet(CFG.classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=CFG.lr)
    for epoch in range(CFG.epochs):
        tr = train(train_loader, net, criterion, optimizer)
        va = validate(val_loader, net, criterion)
        print(f"epoch {epoch} train {tr['loss']:.3f} val {va['loss'].item():.3f} iou {va['iou']:.3f}")
    assert not va["loss"].requires_grad and not any(p.requires_grad for p in va["probs"])


if __name__ == "__main__":
    main()
    print("OK")

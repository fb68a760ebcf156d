"""GG103 (fixed) - the Dice loss keeps the logits attached to the graph.

A tiny segmentation CNN trained with a soft Dice loss module. The loss's
_prepare() helper used to detach the logits; the fix only casts them (no op
in the loss is in-place, so no copy is needed) and backward() reaches the CNN.

Modelled on: https://github.com/pytorch/pytorch/issues/91529
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"channels": 8, "lr": 3e-3, "epochs": 2, "batch_size": 4, "smooth": 1.0, "device": "cpu"}


class TinySegNet(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(), nn.MaxPool2d(2))
        self.mid = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(ch, ch, 2, stride=2)
        self.out = nn.Conv2d(ch, 1, 1)

    def forward(self, x):
        return self.out(self.up(self.mid(self.down(x))))


class SoftDiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    @staticmethod
    def _prepare(logits, target):
        return logits.float(), target.float()

    def forward(self, logits, target):
        logits, target = self._prepare(logits, target)
        probs = torch.sigmoid(logits).flatten(1)
        target = target.flatten(1)
        inter = (probs * target).sum(1)
        denom = probs.sum(1) + target.sum(1)
        dice = (2 * inter + self.smooth) / (denom + self.smooth)
        return 1 - dice.mean()


def train(model, loader, optimizer, criterion, device):
    model.train()
    losses = []
    for i, (img, mask) in enumerate(loader):
        img, mask = img.to(device), mask.to(device)
        logits = model(img)
        loss = criterion(logits, mask)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()  # fixed: GG103
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def make_data(n=16, size=16):
    imgs = torch.rand(n, 1, size, size)
    masks = (imgs > 0.6).float()
    return TensorDataset(imgs, masks)


def main():
    torch.manual_seed(0)
    device = torch.device(CFG["device"])
    model = TinySegNet(CFG["channels"]).to(device)
    loader = DataLoader(make_data(), batch_size=CFG["batch_size"], shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    criterion = SoftDiceLoss(CFG["smooth"])
    for epoch in range(CFG["epochs"]):
        avg = train(model, loader, optimizer, criterion, device)
        print(f"epoch {epoch} dice loss {avg:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")

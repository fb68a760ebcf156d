"""GG108 (fixed) - soft Dice loss on softmax probabilities.

Fix: the Dice overlap is computed from `logits.softmax(dim=1)` instead of one-hot
argmax labels, so it is differentiable and backward() reaches the network.

Mistake fixed: Dice loss computed from argmax predictions.
The buggy version fails with RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class DiceLoss(nn.Module):
    def __init__(self, n_classes, smooth=1.0):
        super().__init__()
        self.n_classes, self.smooth = n_classes, smooth

    def forward(self, logits, target):
        pred_1h = logits.softmax(dim=1)
        target_1h = F.one_hot(target, self.n_classes).permute(0, 3, 1, 2).float()
        inter = (pred_1h * target_1h).sum(dim=(2, 3))
        union = pred_1h.sum(dim=(2, 3)) + target_1h.sum(dim=(2, 3))
        dice = (2 * inter + self.smooth) / (union + self.smooth)
        return 1.0 - dice.mean()


class UNetish(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.dec = nn.Conv2d(16, n_classes, 3, padding=1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        return self.dec(torch.cat([self.up(e2), e1], dim=1))


def train(model, loader, optimizer, criterion, device, epochs=2):
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        model.train()
        losses = []
        for images, masks in loader:
            images, masks = images.to(device), masks.to(device)
            loss = criterion(model(images), masks)
            optimizer.zero_grad()
            loss.backward()  # fixed: GG108
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
        print(f"epoch {epoch}: dice-loss={sum(losses) / len(losses):.4f} lr={scheduler.get_last_lr()[0]:.4f}")


def main():
    torch.manual_seed(0)
    device = "cpu"
    images = torch.randn(8, 1, 16, 16)
    masks = torch.randint(0, 3, (8, 16, 16))
    loader = DataLoader(TensorDataset(images, masks), batch_size=4, shuffle=True)
    model = UNetish().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, loader, optimizer, DiceLoss(n_classes=3), device)


if __name__ == "__main__":
    main()
    print("FIXED: ok")

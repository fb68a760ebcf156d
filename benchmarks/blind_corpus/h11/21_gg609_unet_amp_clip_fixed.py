"""GG609 - gradient clipping on gradients a GradScaler still scales (no unscale_).

Fixed version: grad_scaler.unscale_(optimizer) before clip_grad_norm_.

Mistake (in the buggy file): the U-Net training loop does `grad_scaler.scale(loss).backward()` and then
clips with clip_grad_norm_ straight away. The gradients are still multiplied by the
loss scale (65536 at start), so the measured norm is huge and clipping shrinks them
to max_norm; grad_scaler.step() then divides by the scale again. Silent effect: the
real update is ~65536x smaller than the clipping threshold allows (parameters barely
move) and the logged grad norm is the scaled one.

Modelled on: https://github.com/milesial/Pytorch-UNet/issues/468
("Gradients are clipped before the unscaling" in train.py).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser(description="Train the UNet on images and target masks")
    parser.add_argument("--epochs", "-e", type=int, default=1)
    parser.add_argument("--batch-size", "-b", dest="batch_size", type=int, default=4)
    parser.add_argument("--learning-rate", "-l", dest="lr", type=float, default=1e-2)
    parser.add_argument("--amp", action="store_true", default=True)
    parser.add_argument("--classes", "-c", type=int, default=2)
    parser.add_argument("--gradient-clipping", type=float, default=1.0)
    return parser.parse_args([])


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes):
        super().__init__()
        self.inc = DoubleConv(n_channels, 8)
        self.down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(8, 16))
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.conv = DoubleConv(16, 8)
        self.outc = nn.Conv2d(8, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(x1)
        return self.outc(self.conv(torch.cat([x1, self.up(x2)], dim=1)))


def dice_loss(logits, mask, n_classes, eps=1e-6):
    probs = F.softmax(logits.float(), dim=1)
    onehot = F.one_hot(mask, n_classes).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum((2, 3))
    union = probs.sum((2, 3)) + onehot.sum((2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def train_model(model, loader, optimizer, grad_scaler, args, device):
    criterion = nn.CrossEntropyLoss()
    history = []
    model.train()
    for epoch in range(1, args.epochs + 1):
        for images, true_masks in loader:
            images, true_masks = images.to(device), true_masks.to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.amp):
                masks_pred = model(images)
                loss = criterion(masks_pred.float(), true_masks)
                loss = loss + dice_loss(masks_pred, true_masks, args.classes)
            optimizer.zero_grad(set_to_none=True)
            before = [p.detach().clone() for p in model.parameters()]
            grad_scaler.scale(loss).backward()
            grad_scaler.unscale_(optimizer)  # fixed: GG609
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.gradient_clipping)
            grad_scaler.step(optimizer)
            grad_scaler.update()
            moved = torch.sqrt(sum(((p.detach() - b) ** 2).sum() for p, b in zip(model.parameters(), before)))
            history.append((loss.item(), grad_norm.item(), moved.item()))
            print(f"epoch {epoch} loss {loss.item():.4f} grad_norm {grad_norm.item():.3e} step_size {moved.item():.3e}")
    return history


def main():
    args = get_args()
    torch.manual_seed(0)
    device = torch.device("cpu")
    imgs = torch.randn(12, 3, 16, 16)
    masks = (imgs.mean(1) > 0).long()
    loader = DataLoader(TensorDataset(imgs, masks), batch_size=args.batch_size, shuffle=True)
    model = UNet(3, args.classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    grad_scaler = torch.amp.GradScaler(device.type, enabled=args.amp)
    history = train_model(model, loader, optimizer, grad_scaler, args, device)
    # SGD step size = lr * ||clipped, unscaled grad||; it should be close to lr * min(norm, clip)
    expected_floor = 0.1 * args.lr * args.gradient_clipping
    return all(moved < expected_floor for _, _, moved in history), history


if __name__ == "__main__":
    tiny_steps, history = main()
    assert not any(moved < 0.1 * 1e-2 * 1.0 for _, _, moved in history)
    print("FIXED: ok")

"""GG609 (fixed) - grad_scaler.unscale_(optimizer) before clip_grad_norm_.

Clipping now measures and limits the true gradient norm; grad_scaler.step()
knows the gradients are already unscaled and does not divide them again.

Modelled on: https://github.com/milesial/Pytorch-UNet/pull/470
"""
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.double_conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=2):
        super().__init__()
        self.n_classes = n_classes
        self.inc = DoubleConv(n_channels, 8)
        self.down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(8, 16))
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.dec = DoubleConv(16, 8)
        self.outc = nn.Conv2d(8, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(x1)
        x = self.dec(torch.cat([x1, self.up(x2)], dim=1))
        return self.outc(x)


def dice_loss(logits, mask, n_classes, eps=1e-6):
    probs = F.softmax(logits.float(), dim=1)
    onehot = F.one_hot(mask, n_classes).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum((2, 3))
    union = probs.sum((2, 3)) + onehot.sum((2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def train_model(model, device, epochs=1, batch_size=4, learning_rate=1e-4,
                amp=True, weight_decay=1e-8, momentum=0.999, gradient_clipping=1.0):
    images = torch.randn(8, 3, 16, 16)
    masks = torch.randint(0, model.n_classes, (8, 16, 16))
    train_loader = DataLoader(TensorDataset(images, masks), batch_size=batch_size, shuffle=True)

    optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate,
                                    weight_decay=weight_decay, momentum=momentum, foreach=True)
    grad_scaler = torch.amp.GradScaler(device.type, enabled=amp)
    criterion = nn.CrossEntropyLoss()
    reported_norms = []
    global_step = 0
    for epoch in range(1, epochs + 1):
        model.train()
        for images, true_masks in train_loader:
            images, true_masks = images.to(device), true_masks.to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                masks_pred = model(images)
                loss = criterion(masks_pred.float(), true_masks)
                loss = loss + dice_loss(masks_pred, true_masks, model.n_classes)

            optimizer.zero_grad(set_to_none=True)
            grad_scaler.scale(loss).backward()
            grad_scaler.unscale_(optimizer)  # fixed: GG609
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clipping)
            grad_scaler.step(optimizer)
            grad_scaler.update()
            global_step += 1
            reported_norms.append(grad_norm.item())
            logging.info(f"epoch {epoch} step {global_step}: loss {loss.item():.4f} grad norm {grad_norm.item():.1f}")
    return reported_norms


if __name__ == "__main__":
    torch.manual_seed(0)
    device = torch.device("cpu")
    norms = train_model(UNet().to(device), device)
    assert max(norms) < 1e3
    print("FIXED: ok")

"""GG103 (fixed) - logits are clamped out of place, keeping the graph.

Fix: `predict` uses `logits.clamp(...)` instead of `logits.data.clamp_(...)`, so the
prediction stays connected to the network and backward() reaches its weights.

Mistake fixed: logits clamped through `.data` before the loss.
The buggy version fails with RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class TinySegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        return self.classifier(self.down(x))


def predict(model, images):
    logits = model(images)
    logits = F.interpolate(logits, size=images.shape[-2:], mode="bilinear", align_corners=False)
    return logits.clamp(min=-15.0, max=15.0)


def pixel_accuracy(logits, masks):
    return (logits.argmax(1) == masks).float().mean().item()


def train(model, loader, optimizer, criterion, epochs, ckpt_path):
    best = float("inf")
    for epoch in range(epochs):
        model.train()
        epoch_loss, epoch_acc = 0.0, 0.0
        for i, (images, masks) in enumerate(loader):
            outputs = predict(model, images)
            loss = criterion(outputs, masks)
            optimizer.zero_grad()
            loss.backward()  # fixed: GG103
            optimizer.step()
            epoch_loss += loss.item()
            epoch_acc += pixel_accuracy(outputs, masks)
        epoch_loss /= len(loader)
        print(f"epoch {epoch}: loss={epoch_loss:.4f} pix-acc={epoch_acc / len(loader):.3f}")
        if epoch_loss < best:
            best = epoch_loss
            torch.save({"model": model.state_dict(), "epoch": epoch}, ckpt_path)
    return best


def main():
    torch.manual_seed(0)
    images = torch.randn(12, 3, 16, 16)
    masks = torch.randint(0, 3, (12, 16, 16))
    loader = DataLoader(TensorDataset(images, masks), batch_size=4, shuffle=True)
    model = TinySegNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    with tempfile.TemporaryDirectory() as tmp:
        train(model, loader, optimizer, criterion, 2, os.path.join(tmp, "seg.pt"))


if __name__ == "__main__":
    main()
    print("FIXED: ok")

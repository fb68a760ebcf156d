"""Category GG203 look-alike - loss tensors summed with += inside a single step.

A small U-Net-like segmenter with deep supervision returns logits at three scales.
The loss module collects the per-scale loss tensors in a list and adds them with
`total += w * l`; that sum is backpropagated in the same iteration and then
dropped, so no graph outlives its step. The epoch statistics use .item().
Expected: runs cleanly, no graph is kept across iterations.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def progress(iterable, desc=""):
    """Minimal stand-in for tqdm."""
    for i, item in enumerate(iterable):
        yield item
    print(f"{desc}: {i + 1} it")


class TinySegNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.enc3 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.heads = nn.ModuleList([nn.Conv2d(c, n_classes, 1) for c in (8, 16, 16)])

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = self.enc2(f1)
        f3 = self.enc3(f2)
        return [head(f) for head, f in zip(self.heads, (f1, f2, f3))]


class DeepSupervisionLoss(nn.Module):
    def __init__(self, weights=(1.0, 0.5, 0.25)):
        super().__init__()
        self.weights = weights

    def forward(self, outputs, target):
        per_scale = []
        for out in outputs:
            t = F.interpolate(target[:, None].float(), size=out.shape[-2:], mode="nearest")
            per_scale.append(F.cross_entropy(out, t[:, 0].long()))
        total = 0.0
        for w, l in zip(self.weights, per_scale):
            total += w * l
        return total, per_scale


def train_epoch(model, batches, optimizer, criterion):
    model.train()
    epoch_loss = 0.0
    for images, masks in progress(batches, desc="train"):
        outputs = model(images)
        loss, _ = criterion(outputs, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(batches), loss


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinySegNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randn(2, 1, 16, 16), torch.randint(0, 4, (2, 16, 16))) for _ in range(4)]
    avg, last = train_epoch(model, batches, optimizer, DeepSupervisionLoss())
    assert isinstance(avg, float)
    print(f"avg loss {avg:.4f}")
    print("OK")

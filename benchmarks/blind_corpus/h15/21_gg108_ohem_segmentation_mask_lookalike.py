"""GG108 look-alike - argmax / comparisons / integer casts that only select.

Category: GG108 (look-alike, correct code).
Online hard-example mining for segmentation: argmax and `!=` build an
error mask, a comparison with a top-k threshold picks hard pixels, and the
count is cast to long, but the loss is the per-pixel cross entropy
(differentiable) multiplied by that mask, so backward() works and the
network trains.  Pixel accuracy also uses argmax, for logging only.
Modelled on: none found (OHEM idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinySegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(8, n_classes, 1)

    def forward(self, x):
        return self.cls(self.enc(x))


class OHEMCrossEntropy(nn.Module):
    def __init__(self, keep_ratio=0.25, min_kept=16):
        super().__init__()
        self.keep_ratio, self.min_kept = keep_ratio, min_kept

    def forward(self, logits, target):
        pixel_loss = F.cross_entropy(logits, target, reduction="none").flatten()
        wrong = (logits.argmax(1) != target).flatten()
        n_keep = max(int(self.keep_ratio * pixel_loss.numel()), self.min_kept)
        threshold = pixel_loss.detach().topk(n_keep).values[-1]
        hard = (pixel_loss.detach() >= threshold) | wrong
        mask = hard.float()
        return (pixel_loss * mask).sum() / mask.sum().clamp(min=1.0), hard.sum().long()


def pixel_accuracy(logits, target):
    return (logits.argmax(1) == target).float().mean().item()


def main():
    torch.manual_seed(0)
    net = TinySegNet()
    criterion = OHEMCrossEntropy()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    images, masks = torch.randn(4, 3, 16, 16), torch.randint(0, 3, (4, 16, 16))
    before = net.cls.weight.detach().clone()
    for it in range(4):
        logits = net(images)
        loss, n_hard = criterion(logits, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"it {it}: loss {loss.item():.4f} hard px {int(n_hard)} acc {pixel_accuracy(logits, masks):.3f}")
    assert not torch.equal(before, net.cls.weight)


if __name__ == "__main__":
    main()
    print("OK")

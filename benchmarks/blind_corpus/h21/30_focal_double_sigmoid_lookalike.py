"""GG111 look-alike - sigmoid and BCEWithLogitsLoss in the same loss, correctly.

A segmentation loss combines nn.BCEWithLogitsLoss on the raw logits with a soft
Dice term that needs probabilities, so torch.sigmoid(logits) is computed right
next to it - but only the Dice term gets the probabilities. A second head uses
nn.Sigmoid + nn.BCELoss, which is the matching pair. Nothing is wrong here.

Modelled on: https://github.com/itakurah/focal-loss-pytorch/pull/5
"""
import torch
import torch.nn as nn


class BCEDiceLoss(nn.Module):
    def __init__(self, smooth=1.0, dice_weight=0.5):
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss()
        self.smooth = smooth
        self.dice_weight = dice_weight

    def forward(self, logits, mask):
        probs = torch.sigmoid(logits)
        inter = (probs * mask).sum(dim=(1, 2, 3))
        union = probs.sum(dim=(1, 2, 3)) + mask.sum(dim=(1, 2, 3))
        dice = 1 - (2 * inter + self.smooth) / (union + self.smooth)
        return self.bce(logits, mask) + self.dice_weight * dice.mean()


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.mask_head = nn.Conv2d(8, 1, 1)
        self.presence = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 1),
                                      nn.Sigmoid())

    def forward(self, x):
        h = self.body(x)
        return self.mask_head(h), self.presence(h).squeeze(-1)


def main():
    torch.manual_seed(0)
    model = SegNet()
    seg_loss, cls_loss = BCEDiceLoss(), nn.BCELoss()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x = torch.randn(6, 1, 16, 16)
    mask = (x > 0.5).float()
    present = (mask.flatten(1).sum(1) > 0).float()
    first = None
    for it in range(10):
        logits, p_present = model(x)
        loss = seg_loss(logits, mask) + 0.2 * cls_loss(p_present, present)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    print(f"loss {first:.4f} -> {loss.item():.4f}")
    assert loss.item() < first


if __name__ == "__main__":
    main()
    print("OK")

"""Per-pixel weighted segmentation loss backpropagated with an explicit gradient.

Modelled on: https://github.com/marshuang80/gloria/issues/19 (counterpart)

Look-alike: the loss helper returns one value per image (non-scalar), but the
trainer either reduces it with a weighted sum or passes an explicit
`gradient=` to backward(), both of which are correct.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinySegNet(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Conv2d(width, 1, 1)

    def forward(self, x):
        return self.head(self.body(x))


def per_image_loss(logits, target):
    bce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
    return bce.flatten(1).mean(1)  # shape [batch]


class Trainer:
    def __init__(self, model, lr=1e-3, use_explicit_grad=False):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.use_explicit_grad = use_explicit_grad

    def step(self, images, masks, weights):
        self.optimizer.zero_grad()
        losses = per_image_loss(self.model(images), masks)
        if self.use_explicit_grad:
            # vector-Jacobian product: d(sum(w * losses)) / d(params)
            losses.backward(gradient=weights / weights.sum())
        else:
            loss = (losses * weights).sum() / weights.sum()
            loss.backward()
        self.optimizer.step()
        return losses.detach()


def run():
    torch.manual_seed(0)
    x = torch.randn(4, 1, 16, 16)
    y = (torch.rand(4, 1, 16, 16) > 0.5).float()
    w = torch.tensor([1.0, 2.0, 1.0, 0.5])
    for explicit in (False, True):
        trainer = Trainer(TinySegNet(), use_explicit_grad=explicit)
        for _ in range(2):
            trainer.step(x, y, w)
        for p in trainer.model.parameters():
            assert p.grad is not None


if __name__ == "__main__":
    run()
    print("OK")

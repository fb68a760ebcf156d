"""Look-alike: backbone frozen by name filter, classification head trainable.

Modelled on: https://github.com/megvii-model/DetNAS/issues/34 (counterpart)

Parameters whose name starts with "backbone." get requires_grad=False; the
head's parameters remain trainable, so the loss still has a grad_fn.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Detector(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.cls_head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.cls_head(self.backbone(x).mean(dim=(2, 3)))


def freeze_by_prefix(model, prefix="backbone."):
    for name, p in model.named_parameters():
        if name.startswith(prefix):
            p.requires_grad = False


def do_train(model, loader, lr=0.01):
    freeze_by_prefix(model)
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    for images, targets in loader:
        loss = F.cross_entropy(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    loader = [(torch.randn(4, 3, 16, 16, generator=g), torch.randint(0, 5, (4,), generator=g)) for _ in range(2)]
    m = do_train(Detector(), loader)
    assert m.cls_head.weight.grad is not None
    print("OK")

"""GG401 look-alike (correct code) - requires_grad set on a computed tensor that is a leaf.

The saliency helper converts a uint8 image batch to float and normalises it,
then sets ``x.requires_grad = True``.  ``x`` is computed from other tensors, which
makes it look like the "flag on a non-leaf" mistake, but none of those inputs
require grad (and the model's weights are frozen with ``requires_grad_(False)``
beforehand), so ``x`` is still a leaf and the assignment is legal; its ``.grad``
is filled by backward as intended.

Modelled on: https://github.com/microsoft/tensorwatch/issues/25 (the correct
variant of the saliency code discussed there)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
        )
        self.fc = nn.Linear(8 * 4, num_classes)

    def forward(self, x):
        return self.fc(self.body(x).flatten(1))


def quick_train(model, steps=5):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        imgs = torch.rand(8, 3, 16, 16)
        labels = torch.randint(0, 4, (8,))
        opt.zero_grad()
        F.cross_entropy(model(imgs), labels).backward()
        opt.step()


def preprocess(raw_uint8):
    x = raw_uint8.float() / 255.0
    return (x - MEAN) / STD


def saliency_maps(model, raw_batch, target=None):
    model.eval()
    model.requires_grad_(False)
    x = preprocess(raw_batch)
    x.requires_grad = True
    logits = model(x)
    if target is None:
        target = logits.argmax(dim=1)
    score = logits.gather(1, target.view(-1, 1)).sum()
    score.backward()
    sal = x.grad.abs().amax(dim=1)
    model.requires_grad_(True)
    return sal


def main():
    torch.manual_seed(0)
    model = Net()
    quick_train(model)
    raw = torch.randint(0, 256, (2, 3, 16, 16), dtype=torch.uint8)
    sal = saliency_maps(model, raw)
    assert sal.shape == (2, 16, 16) and torch.isfinite(sal).all()
    print(f"saliency range: {sal.min().item():.4f} .. {sal.max().item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")

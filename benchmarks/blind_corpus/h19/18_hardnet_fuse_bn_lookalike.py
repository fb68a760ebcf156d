"""GG301 look-alike - in-place writes on parameters that are safe.

A segmentation net that (a) initialises its conv kernels in place inside
``torch.no_grad()`` (Dirac identity center plus scaled noise), (b) keeps an EMA
copy of the weights updated with ``mul_``/``add_`` under no_grad, and (c) zeroes a
slice of a *cloned* weight tensor (a non-leaf) to build a masked kernel used in
forward. All look like in-place edits of a leaf Parameter, none is one done under
autograd; runs cleanly.

Modelled on: https://github.com/PingoLH/FCHarDNet/issues/61
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"n_classes": 3, "img": 16, "iters": 4, "ema_decay": 0.9, "lr": 0.05}


class MaskedConv(nn.Conv2d):
    """3x3 conv whose bottom row is masked out (causal in the vertical direction)."""

    def forward(self, x):
        w = self.weight.clone()
        w[:, :, 2, :] = 0.0
        return F.conv2d(x, w, self.bias, self.stride, self.padding)


class SegNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = MaskedConv(8, 8, 3, padding=1)
        self.classifier = nn.Conv2d(8, n_classes, 1)
        self.reset_parameters()

    def reset_parameters(self):
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, nn.Conv2d) and m.kernel_size == (3, 3):
                    m.weight.normal_(0, 0.01)
                    n = min(m.in_channels, m.out_channels)
                    m.weight[torch.arange(n), torch.arange(n), 1, 1] += 1.0
                    if m.bias is not None:
                        m.bias.zero_()

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.classifier(x)


class ModelEMA:
    def __init__(self, model, decay):
        self.ema = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for e, p in zip(self.ema.parameters(), model.parameters()):
            e.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


def main():
    torch.manual_seed(0)
    s = SETTINGS
    model = SegNet(s["n_classes"])
    ema = ModelEMA(model, s["ema_decay"])
    optimizer = torch.optim.SGD(model.parameters(), lr=s["lr"])
    for it in range(s["iters"]):
        x = torch.randn(2, 3, s["img"], s["img"])
        y = torch.randint(0, s["n_classes"], (2, s["img"], s["img"]))
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema.update(model)
        print(f"iter {it}: loss={loss.item():.4f}")
    assert model.conv2.weight.grad[:, :, 2, :].abs().sum() == 0
    with torch.no_grad():
        _ = ema.ema(torch.randn(1, 3, s["img"], s["img"]))


if __name__ == "__main__":
    main()
    print("OK")

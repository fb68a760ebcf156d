"""GG602 look-alike - module/functional calls in forward() whose result is not assigned,
but which work in place.

self.act is nn.ReLU(inplace=True) and F.relu_ / Tensor.clamp_ mutate their argument, so
calling them as bare statements still changes x. A forward hook that records activation
statistics is called for its side effect only. The network is genuinely non-linear.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActivationStats:
    def __init__(self):
        self.means = []

    def update(self, t):
        self.means.append(t.detach().mean().item())


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv3 = nn.Conv2d(8, 16, 3, padding=1)
        self.act = nn.ReLU(inplace=True)
        self.fc = nn.Linear(16, 2)
        self.stats = ActivationStats()

    def forward(self, x):
        x = self.conv1(x)
        self.act(x)
        x = self.conv2(x)
        F.relu_(x)
        x = self.conv3(x)
        x.clamp_(min=0.0)
        self.stats.update(x)
        return self.fc(x.mean(dim=(2, 3)))


def main():
    torch.manual_seed(0)
    model = ConvNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    images = torch.randn(64, 1, 6, 6)
    labels = (images.abs().mean(dim=(1, 2, 3)) > 0.8).long()
    for epoch in range(30):
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        a, b, z = torch.randn(4, 1, 6, 6), torch.randn(4, 1, 6, 6), torch.zeros(4, 1, 6, 6)
        affine = torch.allclose(model(a + b), model(a) + model(b) - model(z), atol=1e-4)
        h = model.conv1(a)
        model.act(h)
    assert not affine and h.min() >= 0 and len(model.stats.means) > 0
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")

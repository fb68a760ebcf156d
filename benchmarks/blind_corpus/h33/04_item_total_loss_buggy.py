"""Multi-term loss summed through .item() before backward.

Modelled on: https://github.com/DeepRank/deeprank/issues/210

The report discusses DeepRank's NeuralNet training loop, which accumulates the
loss with `loss.data.item()`.  Here the same habit leaks into the objective:
the helper that combines the regression and the classification terms sums
their `.item()` values, so the "total loss" is a Python float.  Calling
backward() on it raises "'float' object has no attribute 'backward'".
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeadNet(nn.Module):
    def __init__(self, in_dim=12):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, 24), nn.Tanh())
        self.reg = nn.Linear(24, 1)
        self.cls = nn.Linear(24, 2)

    def forward(self, x):
        h = self.trunk(x)
        return self.reg(h).squeeze(-1), self.cls(h)


class NeuralNet:
    def __init__(self, net, weights=(1.0, 0.5), lr=1e-2):
        self.net = net
        self.weights = weights
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.losses = {"train": []}

    def combined_loss(self, out, target):
        score, logits = out
        y_reg, y_cls = target
        terms = [F.mse_loss(score, y_reg), F.cross_entropy(logits, y_cls)]
        total = 0.0
        for w, t in zip(self.weights, terms):
            total += w * t.item()
        return total

    def _epoch(self, loader):
        running_loss = 0.0
        for x, y_reg, y_cls in loader:
            self.opt.zero_grad()
            loss = self.combined_loss(self.net(x), (y_reg, y_cls))
            loss.backward()  # bug: GG102
            self.opt.step()
            running_loss += float(loss)
        self.losses["train"].append(running_loss / len(loader))

    def train(self, loader, nepoch=2):
        for _ in range(nepoch):
            self._epoch(loader)


def make_loader(n=40, bs=10):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(n, 12, generator=g)
    yr = torch.randn(n, generator=g)
    yc = torch.randint(0, 2, (n,), generator=g)
    return [(x[i:i + bs], yr[i:i + bs], yc[i:i + bs]) for i in range(0, n, bs)]


if __name__ == "__main__":
    model = NeuralNet(TwoHeadNet())
    try:
        model.train(make_loader())
        print("no error raised")
    except AttributeError as e:
        print(f"BUGGY: {e}")

"""GG605 - zero_grad() called between backward() and step().

A BYOL self-supervised ``BYOLTrainer`` computes the loss, calls
``loss.backward()`` and ``optimizer.step()``.  FIXED version: ``zero_grad()``
is moved after ``step()``, so the freshly computed gradients are applied
before being cleared; the online network's weights change.

Modelled on: https://github.com/lucidrains/byol-pytorch/issues/93
"""
import copy
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def mlp(dim, hidden, out):
    return nn.Sequential(nn.Linear(dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, out))


class Encoder(nn.Module):
    def __init__(self, feat=32):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, feat))

    def forward(self, x):
        return self.net(x)


def augment(x):
    flip = torch.rand(x.size(0), 1, 1, 1) < 0.5
    x = torch.where(flip, x.flip(-1), x)
    return x + 0.05 * torch.randn_like(x)


def byol_loss(p, z):
    return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1).mean()


class BYOL(nn.Module):
    def __init__(self, feat=32, proj=16, tau=0.99):
        super().__init__()
        self.online_encoder = nn.Sequential(Encoder(feat), mlp(feat, 64, proj))
        self.predictor = mlp(proj, 64, proj)
        self.target_encoder = copy.deepcopy(self.online_encoder).requires_grad_(False)
        self.tau = tau

    @torch.no_grad()
    def update_moving_average(self):
        for t, o in zip(self.target_encoder.parameters(), self.online_encoder.parameters()):
            t.mul_(self.tau).add_(o, alpha=1 - self.tau)

    def forward(self, x):
        v1, v2 = augment(x), augment(x)
        p1, p2 = self.predictor(self.online_encoder(v1)), self.predictor(self.online_encoder(v2))
        with torch.no_grad():
            z1, z2 = self.target_encoder(v1), self.target_encoder(v2)
        return byol_loss(p1, z2) + byol_loss(p2, z1)


class BYOLTrainer:
    def __init__(self, net, dataset, batch_size=8, lr=3e-4, num_train_steps=4):
        self.byol = net
        self.optimizer = torch.optim.Adam(self.byol.parameters(), lr=lr)
        self.dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)
        self.num_train_steps = num_train_steps
        self.step = 0

    def __call__(self):
        while self.step < self.num_train_steps:
            for (images,) in self.dataloader:
                loss = self.byol(images)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()  # fixed: GG605
                self.byol.update_moving_average()
                print(f"step {self.step}: loss {loss.item():.4f}")
                self.step += 1
                if self.step >= self.num_train_steps:
                    break


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(32, 3, 16, 16))
    net = BYOL()
    before = copy.deepcopy(net.online_encoder.state_dict())
    BYOLTrainer(net, data)()
    after = net.online_encoder.state_dict()
    return [k for k in before if "running" not in k and "num_batches" not in k
            and not torch.equal(before[k], after[k])]


if __name__ == "__main__":
    changed = main()
    assert changed
    print("FIXED: ok")

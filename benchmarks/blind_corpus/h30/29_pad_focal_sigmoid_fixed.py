"""Fixed: face presentation-attack detection: classifier branch returns logits, loss uses BCE-with-logits.

Modelled on: https://github.com/meilfang/LMFD-PAD/pull/1

The classification branch of the dual-stream network ends with ``nn.Sigmoid()``
while ``WeightedFocalLoss`` is built on ``F.binary_cross_entropy_with_logits``,
which applies a sigmoid again.  The loss therefore sees sigmoid(p) with p in
(0, 1), i.e. probabilities stuck in (0.5, 0.73): the model can never express
"bona fide" (probability < 0.5) and the loss on bona fide samples cannot drop
below log 2.  Training runs without any error.

Fix (as in the PR): remove the final ``nn.Sigmoid`` from the classification
branch; apply ``torch.sigmoid`` only when reporting probabilities.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class WeightedFocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0):
        super().__init__()
        self.alpha = torch.tensor([alpha, 1 - alpha])
        self.gamma = gamma

    def forward(self, inputs, targets):
        bce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        at = self.alpha.gather(0, targets.long().view(-1)).view_as(targets)
        pt = torch.exp(-bce)
        return (at * (1 - pt) ** self.gamma * bce).mean()


class DualStreamPAD(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.rgb = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.freq = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.cls = nn.Sequential(nn.Flatten(), nn.Linear(2 * ch, 16), nn.ReLU(),
                                 nn.Linear(16, 1))  # logits: the loss applies sigmoid

    def forward(self, img):
        spectrum = torch.fft.fft2(img.mean(1, keepdim=True)).abs().log1p()
        return self.cls(torch.cat([self.rgb(img), self.freq(spectrum)], dim=1)).squeeze(1)


def make_data(n=16, size=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = (torch.arange(n) % 2).float()                       # 1 = attack, 0 = bona fide
    x = torch.randn(n, 3, size, size, generator=g) + y.view(-1, 1, 1, 1) * 1.5
    return x, y


def train_epoch(model, criterion, optimizer, x, y, batch_size=8):
    model.train()
    for i in range(0, len(x), batch_size):
        output = model(x[i:i + batch_size])
        loss = criterion(output, y[i:i + batch_size])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def attack_probability(model, x):
    model.eval()
    return torch.sigmoid(model(x))   # what the loss function believes the probability is


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-2)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    x, y = make_data()
    model = DualStreamPAD()
    criterion = WeightedFocalLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for _ in range(args.epochs):
        train_epoch(model, criterion, optimizer, x, y)
    return attack_probability(model, x)[y == 0]


if __name__ == "__main__":
    bona_fide_prob = main([])
    print(f"min attack probability on bona fide faces: {bona_fide_prob.min():.3f}")
    assert bona_fide_prob.max() < 0.5
    print("FIXED: ok")

"""GG110 look-alike - softmax outputs next to cross_entropy, but never as its input.

Category: GG110 (look-alike, correct code).
Self-distillation with soft targets: the previous epoch's model gives
softmax probabilities that are used as the *target* argument of
F.cross_entropy (probability targets are supported), while the first
argument is always raw logits.  A softmax is also used for confidence /
calibration logging.
Modelled on: none found (self-distillation / soft-label idiom)
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class MLPClassifier(nn.Module):
    def __init__(self, d_in=16, n_classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, n_classes))

    def forward(self, x):
        return self.net(x)


def expected_calibration_error(logits, y, bins=5):
    probs = F.softmax(logits, dim=1)
    conf, pred = probs.max(1)
    ece = torch.zeros(())
    edges = torch.linspace(0, 1, bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (conf > lo) & (conf <= hi)
        if sel.any():
            ece += sel.float().mean() * ((pred[sel] == y[sel]).float().mean() - conf[sel].mean()).abs()
    return ece.item()


def train_epoch(model, teacher, loader, optimizer, n_classes, alpha=0.5, temp=2.0):
    for x, y in loader:
        logits = model(x)
        hard = F.one_hot(y, n_classes).float()
        if teacher is not None:
            with torch.no_grad():
                soft = F.softmax(teacher(x) / temp, dim=1)
            target = (1 - alpha) * hard + alpha * soft
        else:
            target = hard
        loss = F.cross_entropy(logits, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = MLPClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    teacher = None
    for epoch in range(3):
        loss = train_epoch(model, teacher, loader, optimizer, 4)
        teacher = copy.deepcopy(model).eval()
        with torch.no_grad():
            ece = expected_calibration_error(model(x), y)
        print(f"epoch {epoch}: loss {loss:.4f} ECE {ece:.3f}")


if __name__ == "__main__":
    main()
    print("OK")

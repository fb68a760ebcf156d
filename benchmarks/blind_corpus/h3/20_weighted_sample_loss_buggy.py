"""GG501 - backward() without a gradient argument on a tensor with more than one element.

To down-weight noisy labels the training function switches the criterion to
reduction="none" and multiplies by per-sample weights, but the weighted
vector is returned from compute_loss() and backpropagated as is, without
reducing it to a scalar:
RuntimeError: grad can be implicitly created only for scalar outputs
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, d_in=16, n_classes=4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, 64), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Linear(64, 32), nn.ReLU(),
            nn.Linear(32, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def compute_loss(logits, targets, weights, criterion):
    per_sample = criterion(logits, targets)
    return per_sample * weights


def train(model, loader, optimizer, criterion, scheduler=None, device="cpu"):
    model.train()
    history = []
    for step, (xb, yb, wb) in enumerate(loader):
        xb, yb, wb = xb.to(device), yb.to(device), wb.to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = compute_loss(model(xb), yb, wb, criterion)
        loss.backward()  # bug: GG501
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        history.append(loss.mean().item())
        if step % 2 == 0:
            print(f"step {step:3d} | loss {history[-1]:.4f} | lr {optimizer.param_groups[0]['lr']:.4g}")
    return history


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    x = torch.randn(80, 16)
    y = torch.randint(0, 4, (80,))
    noisy = torch.rand(80) < 0.2
    weights = torch.where(noisy, torch.tensor(0.3), torch.tensor(1.0))
    loader = DataLoader(TensorDataset(x, y, weights), batch_size=16, shuffle=True)
    model = Classifier().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    criterion = nn.CrossEntropyLoss(reduction="none")
    for epoch in range(2):
        hist = train(model, loader, optimizer, criterion, scheduler, device)
        print(f"epoch {epoch}: mean {sum(hist) / len(hist):.4f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")

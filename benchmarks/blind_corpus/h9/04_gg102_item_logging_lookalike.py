"""GG102 look-alike - .item()/float()/.tolist() everywhere, but never before backward().

A regression loop that logs running_loss += loss.item(), feeds float(val_loss) to
ReduceLROnPlateau, stores predictions with .tolist() and uses the float for early
stopping. backward() is always called on the loss tensor itself, so it is fine.

Modelled on: none found (common logging pattern)
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--patience", type=int, default=3)
    return p.parse_args(argv)


class Regressor(nn.Module):
    def __init__(self, d_in=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def train_one_epoch(model, loader, optimizer, criterion):
    model.train()
    running_loss = 0.0
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if step % 2 == 0:
            print(f"  step {step} loss {float(loss):.4f}")
    return running_loss / len(loader)


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    total, preds = 0.0, []
    for x, y in loader:
        out = model(x)
        total += criterion(out, y).item() * len(x)
        preds.extend(out.tolist())
    return total / len(loader.dataset), preds


def main(argv=None):
    torch.manual_seed(0)
    args = parse_args(argv)
    x = torch.randn(96, 10)
    y = x[:, :3].sum(1) + 0.1 * torch.randn(96)
    train_loader = DataLoader(TensorDataset(x[:64], y[:64]), batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[64:], y[64:]), batch_size=args.batch_size)
    model = Regressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1)
    criterion = nn.MSELoss()
    best, bad_epochs, history = float("inf"), 0, []
    for epoch in range(args.epochs):
        tr = train_one_epoch(model, train_loader, optimizer, criterion)
        val, preds = evaluate(model, val_loader, criterion)
        scheduler.step(float(val))
        history.append((tr, val))
        print(f"epoch {epoch}: train {tr:.4f} val {val:.4f} ({len(preds)} preds)")
        if val < best:
            best, bad_epochs = val, 0
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                break
    assert history[-1][0] < history[0][0]


if __name__ == "__main__":
    main([])
    print("OK")

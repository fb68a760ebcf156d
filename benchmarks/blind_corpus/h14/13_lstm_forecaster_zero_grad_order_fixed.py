"""GG605 - optimizer.zero_grad() between loss.backward() and optimizer.step() (FIXED).

Fix: zero_grad() moved to the start of the iteration.

A time-series LSTM forecaster's train() helper was reorganised so that the
"housekeeping" calls sit together: backward, then zero_grad, then step.  The
zero_grad() wipes the gradients that backward() just produced (they become
None), so optimizer.step() has nothing to apply.  Silent: no error; the
loss is printed each epoch but the weights never change.

Modelled on: https://velog.io/@rhss10/기본-optimizer.zerograd는-어디에-넣어주어야-할까
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args():
    p = argparse.ArgumentParser(description="LSTM forecaster")
    p.add_argument("--window", type=int, default=12)
    p.add_argument("--horizon", type=int, default=3)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--epochs", type=int, default=3)
    return p.parse_args([])


class Forecaster(nn.Module):
    def __init__(self, hidden, horizon):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x.unsqueeze(-1))
        return self.head(out[:, -1])


def make_windows(series, window, horizon):
    xs, ys = [], []
    for i in range(len(series) - window - horizon):
        xs.append(series[i:i + window])
        ys.append(series[i + window:i + window + horizon])
    return torch.stack(xs), torch.stack(ys)


def train(model, loader, optimizer, criterion, scheduler, device="cpu"):
    model.train()
    epoch_loss = 0.0
    for batch_idx, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()  # fixed: GG605
        pred = model(x)
        loss = criterion(pred, y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    scheduler.step()
    return epoch_loss / (batch_idx + 1)


def main():
    torch.manual_seed(0)
    args = parse_args()
    t = torch.linspace(0, 20, 200)
    series = torch.sin(t) + 0.1 * torch.randn_like(t)
    x, y = make_windows(series, args.window, args.horizon)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = Forecaster(args.hidden, args.horizon)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    snapshot = {k: v.clone() for k, v in model.state_dict().items()}
    for epoch in range(args.epochs):
        loss = train(model, loader, optimizer, nn.MSELoss(), scheduler)
        print(f"epoch {epoch + 1}/{args.epochs} train_mse={loss:.4f}")
    return all(torch.equal(snapshot[k], v) for k, v in model.state_dict().items())


if __name__ == "__main__":
    frozen = main()
    assert not frozen
    print("FIXED: ok")

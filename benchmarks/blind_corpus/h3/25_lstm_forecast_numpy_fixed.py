"""GG502 - fixed version.

The autoregressive forecast loop runs inside torch.no_grad(), so the
predictions do not require grad and can be turned into NumPy values.
"""
import sys

import numpy as np
import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, hidden=24, layers=1):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, seq, state=None):
        out, state = self.lstm(seq, state)
        return self.head(out[:, -1]), state


def make_windows(series, window=20):
    xs = torch.stack([series[i:i + window] for i in range(len(series) - window)])
    ys = series[window:]
    return xs.unsqueeze(-1), ys.unsqueeze(-1)


def forecast(model, history, horizon=10):
    model.eval()
    preds = []
    window = history.clone().view(1, -1, 1)
    with torch.no_grad():
        for _ in range(horizon):
            nxt, _ = model(window)
            preds.append(nxt.squeeze().numpy())  # fixed: GG502
            window = torch.cat([window[:, 1:], nxt.view(1, 1, 1)], dim=1)
    model.train()
    return np.array(preds)


def mape(pred, true):
    return float(np.mean(np.abs(pred - true) / (np.abs(true) + 1.0)))


def main():
    torch.manual_seed(0)
    t = torch.arange(0, 220, dtype=torch.float32)
    series = torch.sin(t * 0.15) + 0.05 * torch.randn_like(t)
    train_series, test_series = series[:180], series[180:]
    X, Y = make_windows(train_series)
    model = Forecaster()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.MSELoss()
    for epoch in range(3):
        perm = torch.randperm(len(X))
        for i in range(0, len(X), 32):
            idx = perm[i:i + 32]
            pred, _ = model(X[idx])
            loss = loss_fn(pred, Y[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        fc = forecast(model, train_series[-20:], horizon=10)
        print(f"epoch {epoch}: mse={loss.item():.4f} mape@10={mape(fc, test_series[:10].numpy()):.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")

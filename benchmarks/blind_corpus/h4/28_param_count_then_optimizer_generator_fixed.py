"""GG610 - generator of parameters iterated a second time sees nothing (fixed).

The parameters are materialised once with list(model.parameters()), so both the counting
helper and the optimizer see every tensor.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class LSTMForecaster(nn.Module):
    def __init__(self, n_features=3, hidden=16, horizon=2):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, seq):
        out, _ = self.lstm(seq)
        return self.head(out[:, -1])


def describe(params):
    n = sum(p.numel() for p in params if p.requires_grad)
    print(f"trainable parameters: {n:,}")
    return n


def setup(config):
    model = LSTMForecaster(hidden=config["hidden"])
    params = list(model.parameters())
    describe(params)
    optimizer = torch.optim.Adam(params, lr=config["lr"])  # fixed: GG610
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
    return model, optimizer, scheduler


def fit(model, optimizer, scheduler, loader, epochs=3):
    criterion = nn.MSELoss()
    for epoch in range(epochs):
        total = 0.0
        for seq, target in loader:
            optimizer.zero_grad()
            loss = criterion(model(seq), target)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += loss.item()
        scheduler.step(total)
        print(f"epoch {epoch}: {total / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    series = torch.randn(64, 10, 3).cumsum(1)
    target = series[:, -1, :2] * 0.5
    loader = DataLoader(TensorDataset(series, target), batch_size=16, shuffle=True)
    model, optimizer, scheduler = setup({"hidden": 16, "lr": 1e-2})
    fit(model, optimizer, scheduler, loader)


if __name__ == "__main__":
    main()
    print("FIXED: ok")

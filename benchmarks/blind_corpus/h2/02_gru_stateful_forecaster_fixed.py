"""GG201 (fixed): stateful GRU forecaster that detaches its hidden state between batches.

Category GG201. The GRU state is still carried from one window to the next through the
``state`` dict (the loader is not shuffled), but it is detached before being stored, so
each backward() stops at the start of its own batch. The buggy version kept the history
and torch raised "Trying to backward through the graph a second time".
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")


class Forecaster(nn.Module):
    def __init__(self, n_features=3, hidden=24):
        super().__init__()
        self.proj = nn.Linear(n_features, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x, h=None):
        z, h = self.gru(torch.tanh(self.proj(x)), h)
        return self.out(z[:, -1]), h


def make_windows(n_windows=12, length=10, n_features=3):
    t = torch.linspace(0, 20, n_windows * length)
    series = torch.stack([torch.sin(t), torch.cos(t), torch.randn_like(t) * 0.1], dim=-1)
    x = series.view(n_windows, length, n_features)
    y = torch.roll(series[:, 0], -length).view(n_windows, length)[:, -1:].contiguous()
    return TensorDataset(x, y)


def progress(iterable, desc):
    for i, item in enumerate(iterable):
        if i % 4 == 0:
            print(f"[{desc}] batch {i}")
        yield item


def train(model, loader, optimizer, criterion, epochs=2):
    model.train()
    history = []
    for epoch in range(epochs):
        state = {"h": None, "seen": 0}
        for x, y in progress(loader, f"epoch {epoch}"):
            x, y = x.to(device), y.to(device)
            pred, h_n = model(x, state["h"])
            loss = criterion(pred, y)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            state = {"h": h_n.detach(), "seen": state["seen"] + x.size(0)}  # fixed: GG201
            history.append(loss.item())
        print(f"epoch {epoch}: mean mse {sum(history[-len(loader):]) / len(loader):.4f}")
    return history


def main():
    torch.manual_seed(1)
    loader = DataLoader(make_windows(), batch_size=2, shuffle=False)
    model = Forecaster().to(device)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    criterion = nn.MSELoss()
    history = train(model, loader, optimizer, criterion)
    scheduler.step()
    print(f"final loss {history[-1]:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")

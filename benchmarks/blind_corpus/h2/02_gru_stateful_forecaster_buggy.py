"""GG201: stateful GRU forecaster whose hidden state flows from batch to batch with history.

Category GG201. The sensor stream is cut into consecutive windows and the loader is not
shuffled, so the author carries the GRU state from one batch to the next through a small
``state`` dict. The state returned by the model is put back in the dict without detaching,
so batch k's graph reaches back into batch k-1's graph, already freed by its backward().
Torch raises: RuntimeError: Trying to backward through the graph a second time (or directly
access saved tensors after they have already been freed). ...
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
            state = {"h": h_n, "seen": state["seen"] + x.size(0)}  # bug: GG201
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
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

"""GG602 - module called in forward() with its result discarded.

The regressor's forward() calls self.dropout(h) as a statement, without assigning the
result. nn.Dropout is not in-place by default, so the call creates a new tensor that is
thrown away: the network trains with no regularisation at all. Nothing raises; the
symptom is that in train() mode two forward passes on the same input are identical.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class HousePriceMLP(nn.Module):
    def __init__(self, n_features, hidden=64, p_drop=0.5):
        super().__init__()
        self.fc1 = nn.Linear(n_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)
        self.act = nn.ReLU()
        self.dropout = nn.Dropout(p_drop)

    def forward(self, x):
        h = self.act(self.fc1(x))
        self.dropout(h)  # bug: GG602
        h = self.act(self.fc2(h))
        return self.out(h).squeeze(-1)


class Trainer:
    def __init__(self, model, loader, lr=1e-3, device="cpu"):
        self.model = model.to(device)
        self.loader = loader
        self.device = device
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
        self.criterion = nn.MSELoss()
        self.history = []

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for xb, yb in self.loader:
            xb, yb = xb.to(self.device), yb.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(xb), yb)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * len(xb)
        self.history.append(total / len(self.loader.dataset))
        return self.history[-1]


def main():
    torch.manual_seed(0)
    x = torch.randn(128, 6)
    y = x @ torch.randn(6) + 0.1 * torch.randn(128)
    trainer = Trainer(HousePriceMLP(6), DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True))
    for epoch in range(3):
        print(f"epoch {epoch} mse {trainer.train_epoch():.4f}")
    trainer.model.train()
    with torch.no_grad():
        a, b = trainer.model(x[:16]), trainer.model(x[:16])
    return torch.equal(a, b)


if __name__ == "__main__":
    identical = main()
    if identical:
        print("BUGGY: dropout has no effect - two train-mode forward passes are identical")
    else:
        raise SystemExit("NO BUG")

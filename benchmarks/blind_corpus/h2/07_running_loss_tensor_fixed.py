"""GG203 (fixed): epoch loss accumulated as a Python float.

Category GG203. The running sum now adds ``loss.item()``, a plain number, so each batch's
graph is released as soon as its backward() and step are done, and the epoch losses kept
for early stopping are floats. In the buggy version the sum was a tensor chained to
every batch's graph and still had a grad_fn when returned.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_model(d_in=20, n_classes=5):
    return nn.Sequential(
        nn.Linear(d_in, 64), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(64, 64), nn.ReLU(),
        nn.Linear(64, n_classes),
    )


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running_loss = 0.0
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()  # fixed: GG203
        if i % 5 == 4:
            print(f"  batch {i + 1}: avg loss {running_loss / (i + 1):.4f}")
    return running_loss / len(loader)


class EarlyStopping:
    def __init__(self, patience=2):
        self.patience = patience
        self.best = None
        self.bad_epochs = 0

    def __call__(self, value):
        if self.best is None or value < self.best:
            self.best = value
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience


def main():
    torch.manual_seed(5)
    device = torch.device("cpu")
    x = torch.randn(160, 20)
    y = torch.randint(0, 5, (160,))
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = build_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    stopper = EarlyStopping()
    epoch_losses = []
    for epoch in range(3):
        epoch_loss = train_one_epoch(model, loader, optimizer, criterion, device)
        epoch_losses.append(epoch_loss)
        print(f"epoch {epoch}: {epoch_loss:.4f}")
        if stopper(epoch_loss):
            break
    return epoch_losses


if __name__ == "__main__":
    losses = main()
    assert all(isinstance(l, float) for l in losses), "an epoch loss is still a tensor"
    print("FIXED: ok")

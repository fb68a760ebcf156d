"""GG607 (fixed): model.train() at the start of every epoch, after the previous validation.

Category GG607. ``model.train()`` moved inside the epoch loop, so each epoch's training
batches run in training mode even though the previous epoch ended with ``model.eval()``
for validation. In the buggy version every epoch after the first trained in eval mode;
here we assert BatchNorm saw every training batch in training mode.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_model(d_in=12, n_classes=4):
    return nn.Sequential(
        nn.Linear(d_in, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(32, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(32, n_classes),
    )


def fit(model, train_loader, val_loader, optimizer, criterion, epochs=3, device="cpu"):
    history = []
    best_val = float("inf")
    batches_trained = 0
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            batches_trained += 1

        model.eval()  # fixed: GG607
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += criterion(model(x.to(device)), y.to(device)).item()
        val_loss /= len(val_loader)
        best_val = min(best_val, val_loss)
        history.append({"epoch": epoch, "train_loss": loss.item(), "val_loss": val_loss})
        print(f"epoch {epoch}: train {loss.item():.3f} val {val_loss:.3f} (best {best_val:.3f})")
    return history, batches_trained


def main():
    torch.manual_seed(23)
    x = torch.randn(120, 12)
    y = torch.randint(0, 4, (120,))
    train_loader = DataLoader(TensorDataset(x[:96], y[:96]), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[96:], y[96:]), batch_size=12)
    model = build_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    _, batches_trained = fit(model, train_loader, val_loader, optimizer, nn.CrossEntropyLoss())
    tracked = model[1].num_batches_tracked.item()
    return tracked, batches_trained


if __name__ == "__main__":
    tracked, trained = main()
    assert tracked == trained, (tracked, trained)
    print("FIXED: ok")

"""GG204 (fixed): evaluation loop runs under torch.no_grad().

Category GG204. The forward passes of ``evaluate`` now run inside ``torch.no_grad()``, so
no graph is recorded and the collected logits are plain tensors. In the buggy version
every validation batch kept its graph alive through the list of logits, and the returned
probabilities still required grad.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(16 * 4 * 4, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def train_epoch(model, loader, optimizer, criterion, device):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def evaluate(model, loader, device):
    model.eval()
    all_logits, all_targets = [], []
    with torch.no_grad():
        for x, y in loader:  # fixed: GG204
            logits = model(x.to(device))
            all_logits.append(logits)
            all_targets.append(y)
    logits = torch.cat(all_logits)
    targets = torch.cat(all_targets).to(device)
    probs = F.softmax(logits, dim=-1)
    metrics = {
        "nll": F.cross_entropy(logits, targets).item(),
        "acc": (probs.argmax(-1) == targets).float().mean().item(),
    }
    return metrics, probs


def main():
    torch.manual_seed(8)
    device = torch.device("cpu")
    train_ds = TensorDataset(torch.randn(64, 3, 16, 16), torch.randint(0, 3, (64,)))
    val_ds = TensorDataset(torch.randn(32, 3, 16, 16), torch.randint(0, 3, (32,)))
    train_loader = DataLoader(train_ds, batch_size=16, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=8)
    model = SmallCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(2):
        train_epoch(model, train_loader, optimizer, criterion, device)
        metrics, probs = evaluate(model, val_loader, device)
        print(f"epoch {epoch}: val nll {metrics['nll']:.3f} acc {metrics['acc']:.2%}")
    return probs


if __name__ == "__main__":
    probs = main()
    assert not probs.requires_grad and probs.grad_fn is None
    print("FIXED: ok")

"""GG601 look-alike - no optimizer.zero_grad() in the loop, but the gradients ARE cleared.

The training loop never calls optimizer.zero_grad(); instead, after every
optimizer.step() it calls a small helper, reset_gradients(model), that sets
each parameter's .grad to None (what zero_grad(set_to_none=True) does).
Gradients never pile up and the model trains normally.  A checker that only
looks for optimizer.zero_grad() would flag this loop wrongly.

Modelled on: https://github.com/IBM/aihwkit/issues/446 (correct counterpart)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

DEVICE = torch.device("cpu")
HPARAMS = {"channels": 8, "classes": 3, "epochs": 4, "lr": 0.05, "batch": 12}


class TinyCNN(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(channels, channels * 2, 3, padding=1), nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels * 2, classes)

    def forward(self, x):
        return self.fc(self.pool(self.conv(x)).flatten(1))


def reset_gradients(net):
    for p in net.parameters():
        p.grad = None


def train(model, loader, optimizer, criterion):
    model.train()
    epoch_loss = 0.0
    for batch_idx, (images, labels) in enumerate(loader):
        images, labels = images.to(DEVICE), labels.to(DEVICE)
        out = model(images)
        loss = criterion(out, labels)
        loss.backward()
        optimizer.step()
        reset_gradients(model)
        epoch_loss += loss.item()
    return epoch_loss / len(loader)


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for images, labels in loader:
        out = model(images)
        loss_sum += criterion(out, labels).item() * labels.size(0)
        correct += (out.argmax(1) == labels).sum().item()
        total += labels.size(0)
    return loss_sum / total, correct / total


def main():
    torch.manual_seed(4)
    images = torch.randn(60, 1, 8, 8)
    labels = (images.mean(dim=(1, 2, 3)) > 0).long() + (images[:, 0, 0, 0] > 1).long()
    ds = TensorDataset(images, labels)
    train_loader = DataLoader(ds, batch_size=HPARAMS["batch"], shuffle=True)
    eval_loader = DataLoader(ds, batch_size=30)
    model = TinyCNN(HPARAMS["channels"], HPARAMS["classes"]).to(DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=HPARAMS["lr"], momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    start, _ = evaluate(model, eval_loader, criterion)
    for epoch in range(HPARAMS["epochs"]):
        tr = train(model, train_loader, optimizer, criterion)
        va, acc = evaluate(model, eval_loader, criterion)
        print(f"epoch {epoch}: train {tr:.3f} eval {va:.3f} acc {acc:.2f}")
    return start, va, model


if __name__ == "__main__":
    start, end, model = main()
    assert end < start
    assert all(p.grad is None for p in model.parameters())
    print("OK")

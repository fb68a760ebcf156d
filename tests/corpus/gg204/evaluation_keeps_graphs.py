"""Evaluation loops that keep every batch's autograd graph (GG204).

`model.eval()` only changes dropout and batch norm; without torch.no_grad() the collected
logits and the summed validation loss still require grad and hold their graphs.
"""

import torch
from torch import nn

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 5))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)


def make_loader(batches):
    return [(torch.randn(32, 20), torch.randint(0, 5, (32,))) for _ in range(batches)]


def train_one_epoch(loader):
    model.train()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(loader):
    model.eval()
    val_loss = 0.0
    all_logits = []
    for x, y in loader:  # expect: GG204
        logits = model(x)
        val_loss += criterion(logits, y)
        all_logits.append(logits)
    accuracy = (torch.cat(all_logits).argmax(dim=1) == torch.cat([y for _, y in loader]))
    return val_loss / len(loader), accuracy.float().mean().item()


class Predictor:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(20, 5), nn.Softmax(dim=1))

    def predict_proba(self, loader):
        self.net.eval()
        probabilities = []
        for x, _ in loader:  # expect: GG204
            probabilities.append(self.net(x))
        return torch.cat(probabilities)


if __name__ == "__main__":
    train_loader, val_loader = make_loader(4), make_loader(2)
    for epoch in range(2):
        train_one_epoch(train_loader)
        loss, acc = evaluate(val_loader)
        print(f"epoch {epoch}: val loss {loss.item():.3f} acc {acc:.3f}")
    print(Predictor().predict_proba(val_loader).shape)

"""GG110 (fixed) - CrossEntropyLoss gets the raw logits; softmax only for predictions.

A pairwise relation classifier with 4 classes. The model's forward() ends with
used to end with nn.Softmax. The fix returns logits from forward() and keeps a
predict_proba() helper for probabilities, so the loss can approach 0 and falls
well below the log(1 + 3/e) floor of the double-softmax version.

Modelled on: https://github.com/ariecattan/SciCo/issues/2
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"dim": 12, "hidden": 64, "num_labels": 4, "lr": 2e-2, "epochs": 15, "batch_size": 32}


class PairEncoder(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU())

    def forward(self, a, b):
        ha, hb = self.proj(a), self.proj(b)
        return torch.cat([ha, hb, ha * hb, (ha - hb).abs()], dim=-1)


class MulticlassModel(nn.Module):
    def __init__(self, dim, hidden, num_labels):
        super().__init__()
        self.encoder = PairEncoder(dim, hidden)
        self.linear = nn.Sequential(nn.Linear(4 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, num_labels))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, a, b):
        return self.linear(self.encoder(a, b))

    def predict_proba(self, a, b):
        return self.softmax(self(a, b))


def compute_loss(model, batch, reduction="mean"):
    a, b, labels = batch
    scores = model(a, b)
    loss = F.cross_entropy(scores, labels, reduction=reduction)  # fixed: GG110
    return loss, scores


def make_pairs(n, dim, num_labels):
    a = torch.randn(n, dim)
    labels = torch.randint(0, num_labels, (n,))
    b = a.clone()
    b[:, :num_labels] += 4.0 * F.one_hot(labels, num_labels)
    return TensorDataset(a, b, labels)


def train(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for batch in loader:
            loss, _ = compute_loss(model, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 10 == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}")


@torch.no_grad()
def evaluate(model, dataset):
    model.eval()
    per_example, scores = compute_loss(model, dataset.tensors, reduction="none")
    acc = (scores.argmax(-1) == dataset.tensors[2]).float().mean().item()
    return per_example, acc


def main():
    torch.manual_seed(0)
    hp = HPARAMS
    ds = make_pairs(128, hp["dim"], hp["num_labels"])
    model = MulticlassModel(hp["dim"], hp["hidden"], hp["num_labels"])
    optimizer = torch.optim.Adam(model.parameters(), lr=hp["lr"])
    train(model, DataLoader(ds, batch_size=hp["batch_size"], shuffle=True), optimizer, hp["epochs"])
    per_example, acc = evaluate(model, ds)
    floor = math.log(1 + (hp["num_labels"] - 1) / math.e)
    print(f"accuracy {acc:.2f}, min per-example loss {per_example.min():.4f}, floor {floor:.4f}")
    return acc, per_example.min().item(), floor


if __name__ == "__main__":
    acc, min_loss, floor = main()
    assert acc > 0.9 and min_loss < floor
    print("FIXED: ok")

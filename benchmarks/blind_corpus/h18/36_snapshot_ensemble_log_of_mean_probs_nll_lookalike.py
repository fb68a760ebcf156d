"""GG113 look-alike - ensemble averages softmax probabilities, then logs them for nll_loss.

A multi-head ("snapshot ensemble") text classifier averages the softmax outputs
of its heads, and the loss is F.nll_loss(torch.log(mean_probs.clamp_min(eps)), y).
Softmax output is in the chain to nll_loss, but torch.log turns it into
log-probabilities first, which is exactly what nll_loss expects.  Prints OK.

Modelled on: none found
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

EPS = 1e-8
HPARAMS = {"vocab": 50, "emb": 16, "heads": 3, "classes": 4, "lr": 5e-3, "epochs": 3}


class MultiHeadClassifier(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.embedding = nn.EmbeddingBag(hp["vocab"], hp["emb"], mode="mean")
        self.heads = nn.ModuleList([nn.Sequential(nn.Linear(hp["emb"], 32), nn.ReLU(), nn.Linear(32, hp["classes"]))
                                    for _ in range(hp["heads"])])

    def forward(self, tokens):
        h = self.embedding(tokens)
        probs = torch.stack([F.softmax(head(h), dim=-1) for head in self.heads], dim=0)
        return probs.mean(0)


def compute_loss(mean_probs, labels):
    return F.nll_loss(torch.log(mean_probs.clamp_min(EPS)), labels)


def run_epoch(model, loader, optimizer):
    model.train()
    total, count = 0.0, 0
    for tokens, labels in loader:
        mean_probs = model(tokens)
        loss = compute_loss(mean_probs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        count += len(labels)
    return total / count


def main():
    torch.manual_seed(0)
    tokens = torch.randint(0, HPARAMS["vocab"], (40, 7))
    labels = tokens[:, 0] % HPARAMS["classes"]
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=8, shuffle=True)
    model = MultiHeadClassifier(HPARAMS)
    optimizer = torch.optim.Adam(model.parameters(), lr=HPARAMS["lr"])
    history = [run_epoch(model, loader, optimizer) for _ in range(HPARAMS["epochs"])]
    print("epoch losses:", [round(h, 4) for h in history])
    assert all(h > 0 for h in history)
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
    print("OK")

"""GG109 - requires_grad forced on a loss that has no history.

Mistake: the batch-hard triplet loss of a keyword-spotting encoder mines
distances in NumPy, so the resulting loss is a fresh tensor without grad_fn.
To silence "element 0 of tensors does not require grad" the loss is marked
requires_grad=True.  backward() now runs, but the gradient stops at that leaf:
the encoder's .grad stays None and its weights never change (silent).
Fixed: distances are mined with torch ops, so the loss has a real graph.

Modelled on: https://github.com/roman-vygon/triplet_loss_kws/issues/6
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

PARAMS = {"n_mels": 20, "frames": 32, "emb": 16, "margin": 0.5, "lr": 1e-3,
          "epochs": 2, "batch_size": 12, "n_keywords": 4}


class KWSEncoder(nn.Module):
    def __init__(self, n_mels, emb):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_mels, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
                                  nn.Conv1d(32, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU())
        self.fc = nn.Linear(32, emb)

    def forward(self, mel):
        h = self.conv(mel).mean(-1)
        return nn.functional.normalize(self.fc(h), dim=1)


class BatchHardTripletLoss(nn.Module):
    def __init__(self, margin):
        super().__init__()
        self.margin = margin

    def forward(self, embeddings, labels):
        dist = torch.sqrt(((embeddings[:, None, :] - embeddings[None, :, :]) ** 2).sum(-1) + 1e-12)
        same = labels[:, None] == labels[None, :]
        hardest_pos = torch.where(same, dist, torch.zeros_like(dist)).max(1).values
        hardest_neg = torch.where(same, torch.full_like(dist, float("inf")), dist).min(1).values
        losses = torch.clamp(hardest_pos - hardest_neg + self.margin, min=0.0)
        mean_losses = losses.mean()  # fixed: GG109
        return mean_losses


def train(model, loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for mel, kw in loader:
            loss = criterion(model(mel), kw)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: triplet {total / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    p = PARAMS
    kw = torch.arange(p["n_keywords"]).repeat(6)
    mel = torch.randn(len(kw), p["n_mels"], p["frames"]) + kw[:, None, None].float() * 0.3
    loader = DataLoader(TensorDataset(mel, kw), batch_size=p["batch_size"], shuffle=True)
    model = KWSEncoder(p["n_mels"], p["emb"])
    optimizer = torch.optim.Adam(model.parameters(), lr=p["lr"])
    w0 = model.fc.weight.detach().clone()
    train(model, loader, optimizer, BatchHardTripletLoss(p["margin"]), p["epochs"])
    return model, w0


if __name__ == "__main__":
    model, w0 = main()
    assert model.fc.weight.grad is not None
    assert not torch.equal(w0, model.fc.weight)
    print("FIXED: ok")

"""GG113 look-alike (correct code): softmax everywhere, but nll_loss gets log-probs.

An attention-pooling sequence classifier. softmax appears three times: for the
attention weights, for the mixture of two classifier heads (the mixed probabilities
are turned into log-probabilities with torch.log before nll_loss), and for the
confidence that is logged. The loss is always given log-probabilities, so NLL is
correct and positive.
Modelled on: none found (correct counterpart of the reports behind 07/08)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

EPS = 1e-8
SETTINGS = {"feat": 12, "hidden": 24, "classes": 3, "seq": 10, "epochs": 2, "lr": 5e-3}


class AttentionPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, h):
        weights = F.softmax(self.score(h).squeeze(-1), dim=1)
        return torch.bmm(weights.unsqueeze(1), h).squeeze(1), weights


class MixtureClassifier(nn.Module):
    def __init__(self, feat, hidden, classes):
        super().__init__()
        self.rnn = nn.GRU(feat, hidden, batch_first=True)
        self.pool = AttentionPool(hidden)
        self.heads = nn.ModuleList(nn.Linear(hidden, classes) for _ in range(2))
        self.gate = nn.Linear(hidden, 2)

    def forward(self, x):
        h, _ = self.rnn(x)
        pooled, attn = self.pool(h)
        gate = F.softmax(self.gate(pooled), dim=-1)
        probs = sum(gate[:, i:i + 1] * F.softmax(head(pooled), dim=-1)
                    for i, head in enumerate(self.heads))
        return probs, attn


def compute_loss(probs, target):
    log_probs = torch.log(probs.clamp_min(EPS))
    return F.nll_loss(log_probs, target)


def train(model, loader, optimizer):
    model.train()
    seen_losses = []
    for x, y in loader:
        probs, attn = model(x)
        loss = compute_loss(probs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen_losses.append(loss.item())
    confidence = probs.max(dim=-1).values.mean().item()
    return seen_losses, confidence


def main():
    torch.manual_seed(0)
    x = torch.randn(64, SETTINGS["seq"], SETTINGS["feat"])
    y = (x[:, :, 0].sum(1) > 0).long() + (x[:, :, 1].sum(1) > 2).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = MixtureClassifier(SETTINGS["feat"], SETTINGS["hidden"], SETTINGS["classes"])
    optimizer = torch.optim.Adam(model.parameters(), lr=SETTINGS["lr"])
    for epoch in range(SETTINGS["epochs"]):
        losses, conf = train(model, loader, optimizer)
        print(f"epoch {epoch}: nll {sum(losses) / len(losses):.4f} confidence {conf:.3f}")
        assert min(losses) > 0


if __name__ == "__main__":
    main()
    print("OK")

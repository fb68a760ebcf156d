"""GG111 look-alike (correct code): sigmoid and BCE losses side by side, used properly.

A multi-label tagger with an auxiliary reconstruction decoder. The tag head returns raw
logits and they go to BCEWithLogitsLoss; torch.sigmoid(logits) is computed right next
to the loss but only for the F1 metric. The decoder ends in nn.Sigmoid and its output
goes to nn.BCELoss, which is exactly what BCELoss wants. Nothing here is a mistake.
Modelled on: none found (pattern from the reports behind 01/02)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 20, "n_tags": 5, "hidden": 32, "epochs": 3, "batch_size": 16, "lr": 1e-2}


class Tagger(nn.Module):
    def __init__(self, in_dim, n_tags, hidden):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.tag_head = nn.Linear(hidden, n_tags)
        self.decoder = nn.Sequential(nn.Linear(hidden, in_dim), nn.Sigmoid())

    def forward(self, x):
        h = self.encoder(x)
        return self.tag_head(h), self.decoder(h)


def f1_from_logits(logits, targets, threshold=0.5):
    probs = torch.sigmoid(logits)
    pred = (probs > threshold).float()
    tp = (pred * targets).sum()
    precision = tp / pred.sum().clamp(min=1)
    recall = tp / targets.sum().clamp(min=1)
    return (2 * precision * recall / (precision + recall).clamp(min=1e-8)).item()


def compute_losses(model, x, tags, criteria):
    logits, recon = model(x)
    probs = torch.sigmoid(logits)  # for logging only
    losses = {
        "tags": criteria["tags"](logits, tags),
        "recon": criteria["recon"](recon, x),
    }
    return losses, logits, probs


def train(model, loader, optimizer, criteria, epochs):
    for epoch in range(epochs):
        model.train()
        f1s = []
        for x, tags in loader:
            optimizer.zero_grad()
            losses, logits, probs = compute_losses(model, x, tags, criteria)
            total = losses["tags"] + 0.1 * losses["recon"]
            total.backward()
            optimizer.step()
            f1s.append(f1_from_logits(logits.detach(), tags))
        print(f"epoch {epoch}: tags={losses['tags'].item():.3f} recon={losses['recon'].item():.3f} "
              f"f1={sum(f1s) / len(f1s):.3f} mean_p={probs.mean().item():.2f}")


def main():
    torch.manual_seed(0)
    x = torch.rand(96, CONFIG["in_dim"])  # pixel-like inputs in [0, 1]
    tags = (x[:, : CONFIG["n_tags"]] > 0.5).float()
    loader = DataLoader(TensorDataset(x, tags), batch_size=CONFIG["batch_size"], shuffle=True)
    model = Tagger(CONFIG["in_dim"], CONFIG["n_tags"], CONFIG["hidden"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    criteria = {"tags": nn.BCEWithLogitsLoss(), "recon": nn.BCELoss()}
    train(model, loader, optimizer, criteria, CONFIG["epochs"])


if __name__ == "__main__":
    main()
    print("OK")

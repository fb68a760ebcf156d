"""GG111 - sigmoid output given to BCEWithLogitsLoss.

A multi-label tagger's forward() already ends in torch.sigmoid, and the Trainer uses
nn.BCEWithLogitsLoss, which applies a second sigmoid. No error is raised, but every
"logit" the loss sees lies in (0, 1), so sigmoid of it lies in (0.5, 0.73): a negative
label can never cost less than log(2) and the model cannot learn to say "no" (silent).
"""
import math

import torch
import torch.nn as nn


class TagHead(nn.Module):
    def __init__(self, in_dim, n_tags, hidden=48):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.classifier = nn.Linear(hidden, n_tags)

    def forward(self, x):
        return torch.sigmoid(self.classifier(self.encoder(x)))


class Trainer:
    def __init__(self, model, n_tags, lr=1e-2):
        self.model = model
        self.criterion = nn.BCEWithLogitsLoss(pos_weight=torch.full((n_tags,), 1.5))
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.best = float("inf")
        self.patience, self.bad_epochs = 5, 0

    def train_step(self, x, y):
        self.model.train()
        out = self.model(x)
        loss = self.criterion(out, y)  # bug: GG111
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, x, y):
        self.model.eval()
        out = self.model(x)
        per_elem = nn.functional.binary_cross_entropy_with_logits(out, y, reduction="none")
        return per_elem[y == 0].mean().item()

    def train_epoch(self, x, y, batch_size=32):
        perm = torch.randperm(len(x))
        losses = [self.train_step(x[idx], y[idx]) for idx in perm.split(batch_size)]
        return sum(losses) / len(losses)

    def fit(self, x, y, epochs=40):
        for epoch in range(epochs):
            loss = self.train_epoch(x, y)
            if loss < self.best - 1e-4:
                self.best, self.bad_epochs = loss, 0
            else:
                self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                print(f"early stop at epoch {epoch}")
                break
        return self.evaluate(x, y)


def main():
    torch.manual_seed(0)
    x = torch.randn(256, 20)
    w = torch.randn(20, 6)
    y = (x @ w > 0.8).float()
    trainer = Trainer(TagHead(20, 6), n_tags=6)
    neg_loss = trainer.fit(x, y)
    print(f"mean loss on negative labels: {neg_loss:.4f}")
    return neg_loss


if __name__ == "__main__":
    neg_loss = main()
    if neg_loss >= math.log(2) - 1e-6:
        print(f"BUGGY: negative-label loss {neg_loss:.4f} never drops below log(2)={math.log(2):.4f}")
    else:
        raise SystemExit("NO BUG")

"""GG501 look-alike - per-sample loss vectors that are reduced (or given an explicit
gradient) before backward.

Correct code: the criterion uses reduction='none' so that hard examples can be
re-weighted; the vector is reduced to a scalar inside `train_step` before backward().
The saliency helper calls backward() on a (B, C) tensor but passes an explicit
`gradient=` one-hot mask, which is legal. Nothing here raises.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 20, "hidden": 48, "classes": 4, "lr": 5e-3, "epochs": 2, "batch": 16, "focus": 2.0}


class MLPClassifier(nn.Module):
    def __init__(self, in_dim, hidden, classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Dropout(0.1))
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.body(x))


class Trainer:
    def __init__(self, model, optimizer, cfg):
        self.model = model
        self.optimizer = optimizer
        self.cfg = cfg
        self.criterion = nn.CrossEntropyLoss(reduction="none")
        self.history = []

    def sample_weights(self, per_sample):
        # focal-style weights: emphasise samples the model gets wrong
        with torch.no_grad():
            p = torch.exp(-per_sample)
            return (1 - p) ** self.cfg["focus"] + 1e-3

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        per_sample = self.criterion(self.model(x), y)          # shape (B,)
        w = self.sample_weights(per_sample)
        loss = (per_sample * w).sum() / w.sum()                 # scalar
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for step, (x, y) in enumerate(loader):
            running += self.train_step(x, y)
        self.history.append(running / (step + 1))
        return self.history[-1]


def saliency(model, x, target):
    model.eval()
    x = x.clone().requires_grad_(True)
    logits = model(x)                                           # (B, C)
    mask = F.one_hot(target, logits.shape[1]).to(logits.dtype)
    logits.backward(gradient=mask)                              # explicit grad: fine
    return x.grad.abs()


def main():
    torch.manual_seed(1)
    cfg = CONFIG
    xs = torch.randn(64, cfg["in_dim"])
    ys = torch.randint(0, cfg["classes"], (64,))
    loader = DataLoader(TensorDataset(xs, ys), batch_size=cfg["batch"], shuffle=True)
    model = MLPClassifier(cfg["in_dim"], cfg["hidden"], cfg["classes"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    trainer = Trainer(model, opt, cfg)
    for epoch in range(cfg["epochs"]):
        print(f"epoch {epoch}: loss {trainer.train_epoch(loader):.4f}")
    sal = saliency(model, xs[:8], ys[:8])
    assert sal.shape == (8, cfg["in_dim"])


if __name__ == "__main__":
    main()
    print("OK")

"""GG501 look-alike - backward() on a per-example loss vector, but WITH a gradient argument.

A curriculum-weighted classifier keeps the loss per example so it can log the
hardest samples.  It then calls loss_vec.backward(weights), passing the
per-example weights as the gradient.  That is the weighted sum of the losses,
so autograd has everything it needs: no error and the model trains.
A checker that flags every backward() on a non-scalar would be wrong here.

Modelled on: https://github.com/hy-struggle/PRGC/issues/16 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "in_dim": 20,
    "hidden": 48,
    "classes": 4,
    "batch_size": 16,
    "epochs": 3,
    "lr": 5e-3,
    "temperature": 2.0,
}


class MLPClassifier(nn.Module):
    def __init__(self, in_dim, hidden, classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.body(x))


class CurriculumTrainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.hardest = []

    def sample_weights(self, per_example):
        # easier samples get more weight early on; weights sum to one
        with torch.no_grad():
            w = torch.softmax(-per_example / self.cfg["temperature"], dim=0)
        return w

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        logits = self.model(x)
        loss_vec = F.cross_entropy(logits, y, reduction="none")
        weights = self.sample_weights(loss_vec.detach())
        loss_vec.backward(weights)  # gradient given explicitly: weighted sum
        self.optimizer.step()
        self.hardest.append(int(loss_vec.detach().argmax()))
        return float((loss_vec.detach() * weights).sum())

    def train_epoch(self, loader):
        self.model.train()
        total = 0.0
        for x, y in loader:
            total += self.train_step(x, y)
        return total / len(loader)


def make_data(cfg, n=96):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(n, cfg["in_dim"], generator=g)
    proj = torch.randn(cfg["in_dim"], cfg["classes"], generator=g)
    y = (x @ proj).argmax(1)
    return DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)


def main():
    torch.manual_seed(0)
    model = MLPClassifier(CONFIG["in_dim"], CONFIG["hidden"], CONFIG["classes"])
    before = model.head.weight.detach().clone()
    trainer = CurriculumTrainer(model, CONFIG)
    loader = make_data(CONFIG)
    losses = [trainer.train_epoch(loader) for _ in range(CONFIG["epochs"])]
    for i, l in enumerate(losses):
        print(f"epoch {i}: weighted loss {l:.4f}")
    return before, model, losses


if __name__ == "__main__":
    before, model, losses = main()
    assert not torch.equal(before, model.head.weight.detach())
    print("OK")

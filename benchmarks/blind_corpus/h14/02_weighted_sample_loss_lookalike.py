"""GG501 look-alike - backward() on a vector loss WITH an explicit gradient.

A class-balanced trainer keeps per-sample losses (reduction="none") so that
it can log hard examples.  The backward call is made on the vector, but the
per-sample weights are passed as the `gradient` argument, which is the same
as backward() on (weights * loss).sum().  This is correct code and raises
nothing.

Modelled on: none found (pattern of the SparseNeuS report, done correctly)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"in_dim": 12, "n_classes": 4, "batch_size": 16, "lr": 1e-2, "epochs": 2}


class MLPClassifier(nn.Module):
    def __init__(self, in_dim, n_classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def class_weights(labels, n_classes):
    counts = torch.bincount(labels, minlength=n_classes).float().clamp(min=1)
    w = counts.sum() / (n_classes * counts)
    return w


class BalancedTrainer:
    def __init__(self, model, optimizer, weights):
        self.model = model
        self.optimizer = optimizer
        self.weights = weights
        self.hard_examples = []

    def train_step(self, x, y):
        self.model.train()
        logits = self.model(x)
        per_sample = F.cross_entropy(logits, y, reduction="none")
        sample_w = self.weights[y] / y.numel()
        self.optimizer.zero_grad()
        per_sample.backward(gradient=sample_w)
        self.optimizer.step()
        worst = per_sample.detach().topk(2).values.tolist()
        self.hard_examples.extend(worst)
        return (per_sample.detach() * sample_w).sum().item()

    def train_epoch(self, loader):
        total = 0.0
        for step, (x, y) in enumerate(loader):
            total += self.train_step(x, y)
        return total / (step + 1)


def main():
    torch.manual_seed(0)
    x = torch.randn(64, CONFIG["in_dim"])
    y = torch.randint(0, CONFIG["n_classes"], (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CONFIG["batch_size"], shuffle=True)
    model = MLPClassifier(CONFIG["in_dim"], CONFIG["n_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"], momentum=0.9)
    trainer = BalancedTrainer(model, opt, class_weights(y, CONFIG["n_classes"]))
    before = model.head.weight.detach().clone()
    for epoch in range(CONFIG["epochs"]):
        avg = trainer.train_epoch(loader)
        print(f"epoch {epoch} weighted loss {avg:.4f} hardest {max(trainer.hard_examples):.3f}")
    assert not torch.equal(before, model.head.weight)


if __name__ == "__main__":
    main()
    print("OK")

"""GG101 - backward() on a value computed under torch.no_grad().

The Trainer runs a "monitoring" forward pass inside torch.no_grad() to log the
batch accuracy, caches the output on self, and then computes the training loss
from that cached (grad-less) output instead of running the model again.
torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/Lightning-AI/pytorch-lightning/issues/19517
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "in_dim": 20,
    "hidden": 32,
    "classes": 5,
    "batch_size": 16,
    "epochs": 2,
    "lr": 1e-2,
    "log_every": 2,
}


class MLPClassifier(nn.Module):
    def __init__(self, in_dim, hidden, classes):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.LayerNorm(hidden),
            nn.GELU(),
            nn.Linear(hidden, hidden),
            nn.GELU(),
        )
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.encoder(x))


class Trainer:
    def __init__(self, model, optimizer, cfg):
        self.model = model
        self.optimizer = optimizer
        self.cfg = cfg
        self.global_step = 0
        self.cached_logits = None
        self.history = []

    @staticmethod
    def accuracy(logits, y):
        return (logits.argmax(dim=-1) == y).float().mean().item()

    def monitor(self, x, y):
        # cheap metrics pass; output kept so we "don't pay for forward twice"
        with torch.no_grad():
            self.cached_logits = self.model(x)
        return self.accuracy(self.cached_logits, y)

    def training_step(self, batch):
        x, y = batch
        acc = self.monitor(x, y)
        loss = F.cross_entropy(self.cached_logits, y)
        self.optimizer.zero_grad()
        loss.backward()  # bug: GG101
        self.optimizer.step()
        self.global_step += 1
        return {"loss": loss.item(), "acc": acc}

    def train_epoch(self, loader, epoch):
        self.model.train()
        for i, batch in enumerate(loader):
            out = self.training_step(batch)
            self.history.append(out)
            if i % self.cfg["log_every"] == 0:
                print(f"epoch {epoch} step {i} loss {out['loss']:.4f} acc {out['acc']:.3f}")

    def save(self, path):
        torch.save({"model": self.model.state_dict(), "step": self.global_step}, path)


def build_loader(cfg, n=64):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, cfg["in_dim"], generator=g)
    y = torch.randint(0, cfg["classes"], (n,), generator=g)
    return DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    model = MLPClassifier(cfg["in_dim"], cfg["hidden"], cfg["classes"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    trainer = Trainer(model, optimizer, cfg)
    loader = build_loader(cfg)
    for epoch in range(cfg["epochs"]):
        trainer.train_epoch(loader, epoch)
    with tempfile.TemporaryDirectory() as tmp:
        trainer.save(os.path.join(tmp, "last.pt"))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")

"""Category GG407 look-alike - .grad read for logging, but only after backward().

A Trainer for an LSTM text classifier logs per-layer gradient norms. The helper
that reads p.grad is called after scaler.scale(loss).backward() and
scaler.unscale_(), and it skips parameters whose .grad is None (the frozen
embedding never gets one). Gradients are clipped and the step goes through the
GradScaler. Expected: runs cleanly.

Modelled on: none found
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"vocab": 40, "emb": 12, "hidden": 16, "classes": 3, "seq": 7, "batch": 8,
       "epochs": 2, "lr": 2e-3, "max_norm": 1.0}


class LSTMClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embedding = nn.Embedding(cfg["vocab"], cfg["emb"])
        self.embedding.weight.requires_grad_(False)
        self.lstm = nn.LSTM(cfg["emb"], cfg["hidden"], batch_first=True)
        self.fc = nn.Linear(cfg["hidden"], cfg["classes"])

    def forward(self, ids):
        _, (h, _) = self.lstm(self.embedding(ids))
        return self.fc(h[-1])


def grad_norms(model):
    norms = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            continue
        norms[name] = p.grad.detach().norm(2).item()
    return norms


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = LSTMClassifier(cfg)
        self.optimizer = torch.optim.Adam([p for p in self.model.parameters() if p.requires_grad], lr=cfg["lr"])
        self.scaler = torch.amp.GradScaler("cpu")
        self.criterion = nn.CrossEntropyLoss()
        self.history = []

    def train_step(self, ids, labels):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = self.criterion(self.model(ids), labels)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        norms = grad_norms(self.model)
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["max_norm"])
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item(), norms

    def train_epoch(self, loader, epoch):
        for step, (ids, labels) in enumerate(loader):
            loss, norms = self.train_step(ids, labels)
            self.history.append(norms)
            top = max(norms, key=norms.get)
            print(f"epoch {epoch} step {step}: loss={loss:.4f} max grad {top}={norms[top]:.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    ids = torch.randint(0, CFG["vocab"], (24, CFG["seq"]))
    labels = torch.randint(0, CFG["classes"], (24,))
    loader = DataLoader(TensorDataset(ids, labels), batch_size=CFG["batch"], shuffle=True)
    trainer = Trainer(CFG)
    for epoch in range(CFG["epochs"]):
        trainer.train_epoch(loader, epoch)
    assert "embedding.weight" not in trainer.history[-1]
    print("OK")

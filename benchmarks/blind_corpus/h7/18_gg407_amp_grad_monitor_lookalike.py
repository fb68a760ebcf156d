"""GG407 look-alike (correct code) - .grad read in a loop, but only after backward.

A Trainer with CPU autocast + ``GradScaler``.  ``train_step`` reads
``p.grad`` for a per-layer gradient-norm report, and a ``grad_report`` helper is
even defined above the backward call, which can fool a checker that looks at
textual order.  At run time the helper is only called after
``scaler.scale(loss).backward()`` and ``scaler.unscale_()``, and it skips
parameters whose ``.grad`` is still None (the frozen embedding).

Modelled on: https://github.com/davda54/sam/issues/2 (gradient norms read in an
optimizer step; here done after backward and with a None guard)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class MLPWithEmbedding(nn.Module):
    def __init__(self, n_tokens=30, d=16, classes=3):
        super().__init__()
        self.emb = nn.Embedding(n_tokens, d)
        self.emb.weight.requires_grad_(False)
        self.mlp = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, classes))

    def forward(self, tokens):
        return self.mlp(self.emb(tokens).mean(1))


class Trainer:
    def __init__(self, model, lr=1e-3, max_norm=1.0):
        self.model = model
        self.opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
        self.scaler = torch.amp.GradScaler("cpu")
        self.max_norm = max_norm
        self.reports = []

    def grad_report(self):
        return {n: p.grad.norm().item() for n, p in self.model.named_parameters() if p.grad is not None}

    def train_step(self, tokens, labels):
        self.opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(self.model(tokens), labels)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.opt)
        self.reports.append(self.grad_report())
        nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        self.scaler.step(self.opt)
        self.scaler.update()
        return loss.item()

    def train_epoch(self, loader):
        return [self.train_step(t, y) for t, y in loader]


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randint(0, 30, (24, 7)), torch.randint(0, 3, (24,)))
    trainer = Trainer(MLPWithEmbedding())
    for epoch in range(2):
        losses = trainer.train_epoch(DataLoader(ds, batch_size=8, shuffle=True))
        print(f"epoch {epoch}: {sum(losses) / len(losses):.4f}")
    assert "emb.weight" not in trainer.reports[-1] and len(trainer.reports[-1]) == 4


if __name__ == "__main__":
    main()
    print("OK")

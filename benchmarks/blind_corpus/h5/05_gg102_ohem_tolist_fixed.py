"""Category GG102 -- backward() on a value rebuilt from .tolist().
Status: fixed -- the hardest k losses are picked with topk on the tensor.
A text classifier (embedding + GRU) uses online hard example mining: per-sample
losses are turned into a Python list with `.tolist()`, sorted, the hardest k kept and
turned back into a tensor for the mean.  The numbers are right but the graph is gone:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/delira-dev/delira/issues/40
"""
import sys
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    vocab: int = 50
    emb: int = 16
    hidden: int = 24
    classes: int = 4
    seq_len: int = 12
    batch_size: int = 8
    keep_ratio: float = 0.5
    epochs: int = 2
    lr: float = 1e-2
    clip: float = 1.0


class GRUClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, cfg.emb, padding_idx=0)
        self.rnn = nn.GRU(cfg.emb, cfg.hidden, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(2 * cfg.hidden, cfg.classes)

    def forward(self, tokens):
        out, _ = self.rnn(self.emb(tokens))
        return self.fc(self.drop(out.mean(dim=1)))


def ohem_loss(logits, targets, keep_ratio):
    per_sample = F.cross_entropy(logits, targets, reduction="none")
    k = max(1, int(per_sample.numel() * keep_ratio))
    return per_sample.topk(k).values.mean()


def train(model, loader, optimizer, cfg):
    metrics = {"loss": [], "acc": []}
    for epoch in range(cfg.epochs):
        model.train()
        for i, (tokens, labels) in enumerate(loader):
            logits = model(tokens)
            loss = ohem_loss(logits, labels, cfg.keep_ratio)
            optimizer.zero_grad()
            loss.backward()  # fixed: GG102
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            optimizer.step()
            metrics["loss"].append(loss.item())
            metrics["acc"].append((logits.argmax(1) == labels).float().mean().item())
        print(f"epoch {epoch}: loss={metrics['loss'][-1]:.3f} acc={metrics['acc'][-1]:.2f}")
    return metrics


def main():
    cfg = Config()
    torch.manual_seed(0)
    tokens = torch.randint(1, cfg.vocab, (32, cfg.seq_len))
    labels = tokens[:, 0] % cfg.classes
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=cfg.batch_size, shuffle=True)
    model = GRUClassifier(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    train(model, loader, optimizer, cfg)


if __name__ == "__main__":
    main()
    print("FIXED: ok")

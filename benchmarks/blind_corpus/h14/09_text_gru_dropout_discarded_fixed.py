"""GG602 - module called in forward() with its result thrown away (FIXED).

Fix: h = self.dropout(h).

A GRU text classifier defines self.dropout and calls it in forward() on the
pooled sentence vector, but never assigns the result: the next line uses the
undropped tensor.  Dropout therefore never happens during training.  Silent:
no error; two forward passes in train mode return identical logits even
though dropout p=0.5 is configured.

Modelled on: https://github.com/kuanghuei/clean-net/issues/2
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_config():
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=100)
    p.add_argument("--embed", type=int, default=16)
    p.add_argument("--hidden", type=int, default=24)
    p.add_argument("--classes", type=int, default=3)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--epochs", type=int, default=2)
    return p.parse_args([])


class GRUClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embedding = nn.Embedding(cfg.vocab, cfg.embed, padding_idx=0)
        self.gru = nn.GRU(cfg.embed, cfg.hidden, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(cfg.dropout)
        self.fc = nn.Linear(2 * cfg.hidden, cfg.hidden)
        self.out = nn.Linear(cfg.hidden, cfg.classes)

    def forward(self, tokens, lengths):
        emb = self.embedding(tokens)
        packed = nn.utils.rnn.pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        _, h_n = self.gru(packed)
        sent = torch.cat([h_n[0], h_n[1]], dim=-1)
        h = F.relu(self.fc(sent))
        h = self.dropout(h)  # fixed: GG602
        return self.out(h)


def make_loader(cfg, n=32, max_len=12):
    lengths = torch.randint(3, max_len + 1, (n,))
    tokens = torch.zeros(n, max_len, dtype=torch.long)
    for i, L in enumerate(lengths):
        tokens[i, :L] = torch.randint(1, cfg.vocab, (int(L),))
    labels = torch.randint(0, cfg.classes, (n,))
    return DataLoader(TensorDataset(tokens, lengths, labels), batch_size=8, shuffle=True)


def train(model, loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        running = 0.0
        for tokens, lengths, labels in loader:
            optimizer.zero_grad()
            loss = criterion(model(tokens, lengths), labels)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: loss {running / len(loader):.4f}")


def dropout_active(model, loader):
    model.train()
    tokens, lengths, _ = next(iter(loader))
    with torch.no_grad():
        a = model(tokens, lengths)
        b = model(tokens, lengths)
    return not torch.allclose(a, b)


def main():
    torch.manual_seed(0)
    cfg = get_config()
    model = GRUClassifier(cfg)
    loader = make_loader(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, loader, optimizer, nn.CrossEntropyLoss(), cfg.epochs)
    return dropout_active(model, loader)


if __name__ == "__main__":
    active = main()
    assert active
    print("FIXED: ok")

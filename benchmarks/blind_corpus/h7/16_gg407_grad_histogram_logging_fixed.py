"""GG407 - .grad used before any backward ran (it is None).

FIXED version. Original mistake: a GRU sentiment classifier with a small "TensorBoard-like" logger that
records per-parameter gradient statistics.  The logging call was placed right
after the loss is computed, i.e. *before* ``loss.backward()``; on the very first
step no backward has run, every ``param.grad`` is None, and the logger crashes.

torch/Python raised (buggy version): AttributeError: 'NoneType' object has no
attribute 'data'
Fix: log gradient statistics after ``loss.backward()``.

Modelled on: https://github.com/yunjey/pytorch-tutorial/issues/133
"""
import argparse
from collections import defaultdict

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=50)
    ap.add_argument("--emb", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=24)
    ap.add_argument("--seq", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--log-interval", type=int, default=2)
    ap.add_argument("--clip", type=float, default=1.0)
    return ap.parse_args([])


class SentimentGRU(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, 1)

    def forward(self, tokens):
        out, _ = self.gru(self.embedding(tokens))
        return self.fc(out[:, -1]).squeeze(1)


class GradLogger:
    def __init__(self):
        self.hist = defaultdict(list)

    def log(self, model, step):
        for tag, value in model.named_parameters():
            tag = tag.replace(".", "/")
            self.hist[tag + "/grad"].append(value.grad.data.cpu().numpy().std())  # fixed: GG407
            self.hist[tag].append(value.data.cpu().numpy().std())


def train(model, loader, optimizer, criterion, args, logger):
    step = 0
    for epoch in range(args.epochs):
        for tokens, labels in loader:
            optimizer.zero_grad()
            logits = model(tokens)
            loss = criterion(logits, labels)
            loss.backward()
            if step % args.log_interval == 0:
                logger.log(model, step)
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            step += 1
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    args = get_args()
    torch.manual_seed(0)
    tokens = torch.randint(0, args.vocab, (24, args.seq))
    labels = torch.randint(0, 2, (24,)).float()
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=8, shuffle=True)
    model = SentimentGRU(args.vocab, args.emb, args.hidden)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    logger = GradLogger()
    train(model, loader, optimizer, nn.BCEWithLogitsLoss(), args, logger)
    print(f"logged {len(logger.hist)} series")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
